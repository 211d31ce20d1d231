-- Users with user-role messages in flagged conversations inside the run's window: created up to the
-- cut-off, after `since` when set (backfills), for the listed users when set, past their conversation's
-- watermark unless the run ignores watermarks (backfills replay), and created after the user's latest
-- forget (ops.forgotten): what was forgotten is never read again, by any run, backfill or replay, while what
-- a user says after being forgotten is. Reads the source contract only. Twin of load_pending_messages.sql,
-- which applies the same filter to a shard: change both or neither. Each conversation is read from its
-- watermark on (messages_conversation_time_idx): the cost follows the number of conversations and the new
-- messages, not every message ever stored.
select c.user_id, count(*) as messages, count(distinct c.conversation_id) as conversations
from source.conversations c
left join signals.watermarks w on w.conversation_id = c.conversation_id and not %(ignore_watermarks)s
left join (select user_id, max(at) as at from ops.forgotten group by user_id) f on f.user_id = c.user_id
cross join lateral (
    select 1
    from source.messages m
    where m.conversation_id = c.conversation_id
      and (m.created_at, m.message_id) > (coalesce(w.last_message_at, '-infinity'), coalesce(w.last_message_id, ''))
      and m.created_at > coalesce(f.at, '-infinity')
      and m.created_at <= %(until)s
      and (%(since)s::timestamptz is null or m.created_at >= %(since)s)
      and m.role = 'user'
    offset 0
) m
where c.flagged
  and (%(users)s::text[] is null or c.user_id = any(%(users)s))
group by c.user_id
order by c.user_id
