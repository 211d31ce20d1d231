-- Users with user-role messages in flagged conversations inside the run's window: created up to the
-- cut-off, after `since` when set (backfills), for the listed users when set, and past their
-- conversation's watermark unless the run ignores watermarks (backfills replay). Reads the source
-- contract only.
select c.user_id, count(*) as messages, count(distinct c.conversation_id) as conversations
from source.conversations c
join source.messages m on m.conversation_id = c.conversation_id
left join signals.watermarks w on w.conversation_id = c.conversation_id
where c.flagged
  and m.role = 'user'
  and m.created_at <= %(until)s
  and (%(since)s::timestamptz is null or m.created_at >= %(since)s)
  and (%(users)s::text[] is null or c.user_id = any(%(users)s))
  and (%(ignore_watermarks)s
       or w.conversation_id is null
       or (m.created_at, m.message_id) > (w.last_message_at, w.last_message_id))
group by c.user_id
order by c.user_id
