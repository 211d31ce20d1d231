-- A checked flat file into the staging tables every load fills (load_staging_tables): one row per
-- conversation (its rows agree, load_rows_conversation_differs), one per message.
insert into load_conversations (conversation_id, user_id, channel, agent_id, extract)
select distinct on (conversation_id) conversation_id, user_id, channel, agent_id, extract
from load_rows
order by conversation_id, row_number;
insert into load_messages (conversation_id, message_id, role, content, created_at)
select conversation_id, message_id, role, content, created_at
from load_rows;
