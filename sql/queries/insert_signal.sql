-- A new inferred signal with its `create` event and its evidence, in one statement (one round trip). The
-- evidence comes as parallel arrays, one element per cited message. No row, no event and no evidence when
-- the deterministic id is already taken.
-- Its decay score is the run's (signals.retention at %(at)s, as update_decay computes it), and a contextual
-- signal already under the archive threshold (learned from old messages) is written archived, with the
-- `archive` event archive_decayed.sql would log: the run's decay stage has nothing left to change, so the
-- set the extraction's summary describes is the set that stays active.
with decay as (
    select signals.retention(%(last_seen_at)s, %(mentions)s, %(at)s, %(base_days)s, %(boost)s) as score
), created as (
    insert into signals.signals as s (
        signal_id, user_id, content, normalized, kind, tier, origin, status,
        mention_count, first_seen_at, last_seen_at, embedding, decay_score
    )
    select
        %(signal_id)s, %(user_id)s, %(content)s, %(normalized)s, %(kind)s, %(tier)s, 'inferred',
        case when %(tier)s = 'contextual' and decay.score < %(threshold)s then 'archived' else 'active' end,
        %(mentions)s, %(first_seen_at)s, %(last_seen_at)s, %(embedding)s::vector, decay.score
    from decay
    on conflict (signal_id) do nothing
    returning signal_id, status, to_jsonb(s) - 'embedding' as snapshot
), event as (
    insert into signals.events (signal_id, user_id, run_id, action, actor, prompt_version, model, before, after)
    select signal_id, %(user_id)s, %(run_id)s, 'create', 'pipeline', %(prompt_version)s, %(model)s, null::jsonb, snapshot
    from created
    union all
    select signal_id, %(user_id)s, %(run_id)s, 'archive', 'pipeline', null, null, null::jsonb, snapshot
    from created where status = 'archived'
), evidence as (
    insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at, run_id)
    select created.signal_id, cited.conversation_id, cited.message_id, cited.quote, cited.message_at, %(run_id)s
    from created,
         unnest(%(conversation_ids)s::text[], %(message_ids)s::text[], %(quotes)s::text[],
                %(message_ats)s::timestamptz[]) as cited (conversation_id, message_id, quote, message_at)
    on conflict (signal_id, conversation_id, message_id) do nothing
)
select signal_id, status, snapshot from created
