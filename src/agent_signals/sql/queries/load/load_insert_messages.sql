-- Messages already stored are kept as they are (messages are immutable); new ones are appended.
insert into app.messages (conversation_id, message_id, role, content, created_at)
select conversation_id, message_id, role, content, created_at
from load_messages
on conflict (conversation_id, message_id) do nothing
