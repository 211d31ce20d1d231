-- (signal, cited message) pairs of active inferred signals, for scoring against labelled data.
select s.signal_id, s.user_id, e.conversation_id, e.message_id
from signals.signals s
join signals.evidence e using (signal_id)
where s.origin = 'inferred' and s.status = 'active'
