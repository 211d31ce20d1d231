-- Run-level locks on users (a different key space from the per-transaction write lock of lock_user.sql):
-- two runs never process one user at the same time. Returns the users this session now holds.
select user_id
from unnest(%(user_ids)s::text[]) as u(user_id)
where pg_try_advisory_lock(hashtextextended('agent_signals.run-user:' || user_id, 0))
