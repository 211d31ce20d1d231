-- The known signals a batch request showed, by id, if still active (one merged or removed since is not
-- found: an answer naming it is refused by validation as naming an unknown signal).
select signal_id, content, normalized, tier, kind, origin, agent_id, valid_to
from signals.signals
where signal_id = any(%(signal_ids)s) and user_id = %(user_id)s and status = 'active'
