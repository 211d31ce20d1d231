-- The staged new inferred signals with their `create` events and their evidence, in one statement. A
-- staged signal whose deterministic id is already taken gets no row, no event and no evidence (the caller
-- stages it again under a new id). Its decay score is the run's (signals.retention at %(at)s, as
-- update_decay computes it), and a contextual signal already under the archive threshold (learned from old
-- messages) is written archived, with the `archive` event archive_decayed.sql would log: the run's decay
-- stage has nothing left to change, so the set the extraction's summary describes is the set that stays
-- active. A fact whose validity had already ended (valid_to at or before %(at)s: "I was a teacher until
-- 2020") is written ended. A held candidate (review_reason: why; m023) is written `pending`, whatever its
-- age or validity: a reviewer decides. The batch's rows of both staging tables are consumed.
with staged as (
    delete from staging.apply_new_signals where batch = %(write_key)s returning *
), cited as (
    delete from staging.apply_new_evidence where batch = %(write_key)s returning *
), created as (
    insert into signals.signals as s (
        signal_id, user_id, content, normalized, kind, tier, origin, status,
        mention_count, first_seen_at, last_seen_at, embedding, decay_score, agent_id, valid_from, valid_to,
        supersedes, review_reason
    )
    select n.signal_id, n.user_id, n.content, n.normalized, n.kind, n.tier, 'inferred',
           case when n.review_reason is not null then 'pending'
                when n.valid_to <= %(at)s then 'ended'
                when n.tier = 'contextual' and signals.archives(d.score, %(decay)s::jsonb) then 'archived'
                else 'active' end,
           n.mentions, n.first_seen_at, n.last_seen_at, n.embedding, d.score, n.agent_id, n.valid_from, n.valid_to,
           n.supersedes, n.review_reason
    from staged n
    cross join lateral (
        select signals.retention(n.last_seen_at, n.mentions, %(at)s, %(decay)s::jsonb) as score
    ) d
    on conflict (signal_id) do nothing
    returning signal_id, status, to_jsonb(s) - 'embedding' as snapshot
), event as (
    insert into signals.events (signal_id, user_id, run_id, action, actor, prompt_version, model, before, after)
    select c.signal_id, n.user_id, n.run_id, 'create', 'pipeline', n.prompt_version, n.model, null::jsonb, c.snapshot
    from created c join staged n using (signal_id)
    union all
    select c.signal_id, n.user_id, n.run_id, 'archive', 'pipeline', null, null, null::jsonb, c.snapshot
    from created c join staged n using (signal_id)
    where c.status = 'archived'
), evidence as (
    insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
    select e.signal_id, e.conversation_id, e.message_id, e.quote, e.message_at, n.run_id
    from cited e join created c using (signal_id) join staged n using (signal_id)
    on conflict (signal_id, conversation_id, message_id) do nothing
)
select signal_id, status from created
