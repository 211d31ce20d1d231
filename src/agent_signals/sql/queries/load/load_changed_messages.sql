-- Messages of the file already stored with another text, role or time (loaded messages are immutable):
-- the first one, what differs, and how many differ in all.
select l.conversation_id,
       l.message_id,
       array_remove(array[
           case when m.content <> l.content then 'text' end,
           case when m.role <> l.role then 'role' end,
           case when m.created_at <> l.created_at then 'created_at' end
       ], null) as differs,
       count(*) over () as changed
from load_messages l
join app.messages m using (conversation_id, message_id)
where (m.content, m.role, m.created_at) is distinct from (l.content, l.role, l.created_at)
order by l.conversation_id, l.message_id
limit 1
