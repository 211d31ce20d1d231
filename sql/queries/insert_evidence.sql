-- A proposal's evidence for a signal it restates or updates, in one statement; the rows it inserts are the
-- newly cited messages. The evidence comes as parallel arrays, one element per cited message (the same
-- shape insert_signal.sql takes for a new signal).
insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
select %(signal_id)s, cited.conversation_id, cited.message_id, cited.quote, cited.message_at, %(run_id)s
from unnest(%(conversation_ids)s::text[], %(message_ids)s::text[], %(quotes)s::text[],
            %(message_ats)s::timestamptz[]) as cited (conversation_id, message_id, quote, message_at)
on conflict (signal_id, conversation_id, message_id) do nothing
