-- A merge: the absorbed signal stays in the table, pointing at the survivor, which gets copies of its
-- evidence. Returns the (conversation, message) keys copied, so an undo can remove exactly those.
with absorbed as (
    update signals.signals
    set status = 'merged', merged_into = %(survivor_id)s, updated_at = now()
    where signal_id = %(signal_id)s and origin = 'inferred' and status = 'active'
    returning signal_id
), copied as (
    insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
    select %(survivor_id)s, e.conversation_id, e.message_id, e.quote, e.message_at, %(run_id)s
    from signals.evidence e
    where e.signal_id in (select signal_id from absorbed)
    on conflict do nothing
    returning conversation_id, message_id
)
select coalesce(jsonb_agg(jsonb_build_array(conversation_id, message_id)), '[]'::jsonb) as copied,
       (select count(*) from absorbed) as absorbed
from copied
