-- The messages a shard of users may read in the run's window (signals.messages_to_read: the same filter
-- as the scan). `stale`: so old that a contextual fact stated in it alone is archived at once
-- (the retention of one mention at the run's time, under the threshold).
select m.user_id, m.conversation_id, m.message_id, m.content, m.created_at,
       signals.archives(signals.retention(m.created_at, 1, %(at)s, %(decay)s::jsonb), %(decay)s::jsonb) as stale,
       c.agent_id
from signals.messages_to_read(%(until)s, %(since)s, %(user_ids)s, %(ignore_watermarks)s) m
left join source.conversations c on c.conversation_id = m.conversation_id
order by m.user_id, m.created_at, m.conversation_id, m.message_id
