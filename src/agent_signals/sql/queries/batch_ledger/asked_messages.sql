-- The messages a batch request showed, by id (whatever their conversation's watermark says now); a message
-- deleted from the source since is simply not found.
select m.conversation_id, m.message_id, m.content, m.created_at,
       signals.archives(signals.retention(m.created_at, 1, %(at)s, %(decay)s::jsonb), %(decay)s::jsonb) as stale,
       c.agent_id
from unnest(%(conversation_ids)s::text[], %(message_ids)s::text[]) as k(conversation_id, message_id)
join source.messages m on m.conversation_id = k.conversation_id and m.message_id = k.message_id
join source.conversations c on c.conversation_id = m.conversation_id
where c.user_id = %(user_id)s and m.role = 'user'
