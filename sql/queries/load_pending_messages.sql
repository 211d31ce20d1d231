-- The user-role messages of a shard of users inside the run's window. Twin of scan_pending_users.sql: the
-- same filter (window, watermarks, and nothing created before the user's latest forget in ops.forgotten),
-- applied to a shard; change both or neither. Each conversation of the shard is read from its watermark on,
-- through messages_conversation_time_idx, so the cost follows the new messages, not the history. `stale`: so
-- old that a contextual fact stated in it alone is archived at once (signals.retention of one mention at the
-- run's time, under the threshold).
select c.user_id, m.conversation_id, m.message_id, m.content, m.created_at,
       signals.retention(m.created_at, 1, %(at)s, %(base_days)s, %(boost)s) < %(threshold)s as stale
from source.conversations c
left join signals.watermarks w on w.conversation_id = c.conversation_id and not %(ignore_watermarks)s
left join (select user_id, max(at) as at from ops.forgotten group by user_id) f on f.user_id = c.user_id
cross join lateral (
    select m.conversation_id, m.message_id, m.content, m.created_at
    from source.messages m
    where m.conversation_id = c.conversation_id
      and (m.created_at, m.message_id) > (coalesce(w.last_message_at, '-infinity'), coalesce(w.last_message_id, ''))
      and m.created_at > coalesce(f.at, '-infinity')
      and m.created_at <= %(until)s
      and (%(since)s::timestamptz is null or m.created_at >= %(since)s)
      and m.role = 'user'
    offset 0
) m
where c.user_id = any(%(user_ids)s)
  and c.flagged
order by c.user_id, m.created_at, m.conversation_id, m.message_id
