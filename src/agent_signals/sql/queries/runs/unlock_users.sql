select pg_advisory_unlock(hashtextextended('agent_signals.run-user:' || user_id, 0))
from unnest(%(user_ids)s::text[]) as u(user_id)
