-- The staged rewrites (an update's new text: embedding null keeps the one the signal has) and the staged
-- evidence of the signals the round restates or updates, in one statement; returns how many messages each
-- signal newly cites. The batch's rows of both staging tables are consumed.
with rewrites as (
    delete from staging.apply_rewrites where batch = %(batch)s returning *
), rewritten as (
    update signals.signals s
    set content = r.content, normalized = r.normalized, kind = r.kind, tier = r.tier,
        embedding = coalesce(r.embedding, s.embedding), updated_at = now()
    from rewrites r
    where s.signal_id = r.signal_id and s.origin = 'inferred'
    returning s.signal_id
), cited as (
    delete from staging.apply_cited_evidence where batch = %(batch)s returning *
), inserted as (
    insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
    select signal_id, conversation_id, message_id, quote, message_at, %(run_id)s from cited
    on conflict (signal_id, conversation_id, message_id) do nothing
    returning signal_id
)
select signal_id, count(*) as new from inserted group by signal_id
