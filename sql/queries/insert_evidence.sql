insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
values (%(signal_id)s, %(conversation_id)s, %(message_id)s, %(quote)s, %(message_at)s, %(run_id)s)
on conflict (signal_id, conversation_id, message_id) do nothing
