-- Set aside the messages a failing user's calls kept reading: no run reads them until they are released.
insert into ops.set_aside (user_id, conversation_id, message_id, attempts, reason, run_id)
select %(user_id)s, t.conversation_id, t.message_id, %(attempts)s, %(reason)s, %(run_id)s
from unnest(%(conversation_ids)s::text[], %(message_ids)s::text[]) as t (conversation_id, message_id)
on conflict (conversation_id, message_id) where released_at is null do nothing
