-- The staged evidence of the signals a round restates, in one statement; returns how many messages each
-- signal newly cites. The batch's rows of the staging table are consumed. (A signal's text is never
-- rewritten: an update that changes a fact writes a new version, apply_create.sql, and ends the old one,
-- apply_validity.sql.)
with cited as (
    delete from staging.apply_cited_evidence where batch = %(write_key)s returning *
), inserted as (
    insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
    select signal_id, conversation_id, message_id, quote, message_at, %(run_id)s from cited
    on conflict (signal_id, conversation_id, message_id) do nothing
    returning signal_id
)
select signal_id, count(*) as new from inserted group by signal_id
