-- The user's own active signal of a kind where it excludes inferred ones (AGENT_SIGNALS_EXCLUSIVE_KINDS).
select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where user_id = %(user_id)s and origin = 'manual' and status = 'active' and kind = %(kind)s
limit 1
