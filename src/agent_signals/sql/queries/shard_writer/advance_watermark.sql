-- The watermarks of every conversation the group's users read, past the last message read, in one
-- statement. Watermarks only move forward.
insert into signals.watermarks as w (conversation_id, user_id, last_message_at, last_message_id, run_id)
select conversation_id, user_id, last_message_at, last_message_id, %(run_id)s
from unnest(%(conversation_ids)s::text[], %(user_ids)s::text[], %(message_ats)s::timestamptz[],
            %(message_ids)s::text[]) as read (conversation_id, user_id, last_message_at, last_message_id)
on conflict (conversation_id) do update
    set last_message_at = excluded.last_message_at,
        last_message_id = excluded.last_message_id,
        run_id = excluded.run_id,
        updated_at = now()
    where (excluded.last_message_at, excluded.last_message_id) > (w.last_message_at, w.last_message_id)
