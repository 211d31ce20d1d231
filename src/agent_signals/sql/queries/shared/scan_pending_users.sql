-- Users with messages the run may read (signals.messages_to_read, m012: the one copy of the filter: window,
-- watermarks, forgets, set-aside messages), how many, and whether the user waits out a failure's backoff
-- (`waiting`: the run leaves them for later and counts them as skipped).
select user_id, count(*) as messages, count(distinct conversation_id) as conversations, bool_or(waiting) as waiting
from signals.messages_to_read(%(until)s, %(since)s, %(users)s, %(ignore_watermarks)s)
group by user_id
order by user_id
