select c.conversation_id, c.user_id, l.user_id
from load_conversations l
join app.conversations c using (conversation_id)
where c.user_id <> l.user_id
limit 1
