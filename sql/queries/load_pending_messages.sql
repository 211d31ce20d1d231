-- The messages a shard of users may read in the run's window (signals.messages_to_read, m012: the same filter
-- as the scan). `stale`: so old that a contextual fact stated in it alone is archived at once
-- (signals.retention of one mention at the run's time, under the threshold).
select user_id, conversation_id, message_id, content, created_at,
       signals.retention(created_at, 1, %(at)s, %(base_days)s, %(boost)s) < %(threshold)s as stale
from signals.messages_to_read(%(until)s, %(since)s, %(user_ids)s, %(ignore_watermarks)s)
order by user_id, created_at, conversation_id, message_id
