-- Users with user-role messages in flagged conversations inside the run's window: created up to the
-- cut-off, after `since` when set (backfills), for the listed users when set, and past their
-- conversation's watermark unless the run ignores watermarks (backfills replay). Reads the source
-- contract only (load_pending_messages.sql applies the same filter to a shard). Each conversation is read
-- from its watermark on (messages_conversation_time_idx): the cost follows the number of conversations and
-- the new messages, not every message ever stored.
select c.user_id, count(*) as messages, count(distinct c.conversation_id) as conversations
from source.conversations c
left join signals.watermarks w on w.conversation_id = c.conversation_id and not %(ignore_watermarks)s
cross join lateral (
    select 1
    from source.messages m
    where m.conversation_id = c.conversation_id
      and (m.created_at, m.message_id) > (coalesce(w.last_message_at, '-infinity'), coalesce(w.last_message_id, ''))
      and m.created_at <= %(until)s
      and (%(since)s::timestamptz is null or m.created_at >= %(since)s)
      and m.role = 'user'
    offset 0
) m
where c.flagged
  and (%(users)s::text[] is null or c.user_id = any(%(users)s))
group by c.user_id
order by c.user_id
