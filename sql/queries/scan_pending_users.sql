-- Users with user-role messages in flagged conversations past their conversation's watermark,
-- created up to the run's cut-off. Reads the source contract only.
select c.user_id, count(*) as messages, count(distinct c.conversation_id) as conversations
from source.conversations c
join source.messages m on m.conversation_id = c.conversation_id
left join signals.watermarks w on w.conversation_id = c.conversation_id
where c.flagged
  and m.role = 'user'
  and m.created_at <= %(until)s
  and (w.conversation_id is null
       or (m.created_at, m.message_id) > (w.last_message_at, w.last_message_id))
group by c.user_id
order by c.user_id
