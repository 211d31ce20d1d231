-- The user-role messages of a shard of users inside the run's window (same filter as scan_pending_users).
select c.user_id, m.conversation_id, m.message_id, m.content, m.created_at
from source.conversations c
join source.messages m on m.conversation_id = c.conversation_id
left join signals.watermarks w on w.conversation_id = c.conversation_id
where c.user_id = any(%(user_ids)s)
  and c.flagged
  and m.role = 'user'
  and m.created_at <= %(until)s
  and (%(since)s::timestamptz is null or m.created_at >= %(since)s)
  and (%(ignore_watermarks)s
       or w.conversation_id is null
       or (m.created_at, m.message_id) > (w.last_message_at, w.last_message_id))
order by c.user_id, m.created_at, m.conversation_id, m.message_id
