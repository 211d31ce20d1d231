-- Watermarks only move forward.
insert into signals.watermarks as w (conversation_id, user_id, last_message_at, last_message_id, run_id)
values (%(conversation_id)s, %(user_id)s, %(last_message_at)s, %(last_message_id)s, %(run_id)s)
on conflict (conversation_id) do update
    set last_message_at = excluded.last_message_at,
        last_message_id = excluded.last_message_id,
        run_id = excluded.run_id,
        updated_at = now()
    where (excluded.last_message_at, excluded.last_message_id) > (w.last_message_at, w.last_message_id)
