-- Validity (issue 20, point 3): the time a fact held, apart from when it was recorded.
--
-- valid_from / valid_to: when the fact began and stopped holding, from the date of the message that stated
-- it and what the user said there ("until March", "since last year", "no longer"): core/validity.py resolves
-- the phrase the model quotes. Null valid_from: not known (a signal from before validity, or a past fact whose
-- start was not said); null valid_to: it still holds. The user's own signals carry none: they hold until the
-- user removes them.
--
-- A fact whose validity ended is `ended`: out of the context views, the cap and the prompts like an archived
-- one, kept with its history. An update that changes a fact ends the old version (valid_to) and creates the
-- new one (valid_from, supersedes: the version it replaced); the old row is never overwritten. The decay stage
-- ends the signals whose valid_to has come (an `end` event each), so a fact leaves the views at the first run
-- at or after its end, and the as-of reads leave it out from its end exactly.

alter table signals.signals
    add column valid_from timestamptz,
    add column valid_to timestamptz,
    add column supersedes uuid references signals.signals (signal_id),
    add constraint signals_validity_check check (valid_from is null or valid_to is null or valid_from <= valid_to),
    add constraint signals_manual_validity_check check (origin = 'inferred' or (valid_from is null and valid_to is null));
comment on column signals.signals.valid_from is 'when the fact began to hold (null: not known)';
comment on column signals.signals.valid_to is 'when the fact stopped holding (null: it still holds)';
comment on column signals.signals.supersedes is 'the version of the fact this one replaced (an update ended it)';

alter table signals.signals drop constraint signals_status_check;
alter table signals.signals add constraint signals_status_check
    check (status in ('active', 'archived', 'ended', 'merged', 'deleted', 'retracted'));

-- the signals whose validity is due to end: a range of this index, not a scan of every signal
create index signals_valid_to_idx on signals.signals (valid_to)
    where valid_to is not null and status in ('active', 'archived');

alter table staging.apply_new_signals
    add column valid_from timestamptz,
    add column valid_to timestamptz,
    add column supersedes uuid;

-- The as-of rebuild (m021) reads validity: a signal active at `at` whose valid_to is at or before `at` had
-- already ended then, even when the run that marked it ended came later.
create or replace function signals.context_as_of(
    p_user_id text,
    p_agent_id text,
    p_at timestamptz,
    p_mention_boost double precision default null
) returns table (context_markdown text, manual_count integer, core_count integer, contextual_count integer)
language sql stable set search_path = pg_catalog, pg_temp as $$
    with user_events as (
        select e.event_id, e.signal_id, e.action, e.before, e.after
        from signals.events e
        where e.user_id = p_user_id and e.at <= p_at
    ),

    -- each event's rows after it, one per signal it changed (an `after` that is not a row changes nothing)
    states as (
        select event_id, signal_id, after as snapshot
        from user_events
        where action not in ('merge', 'undo') and after ? 'status'
        union all
        select event_id, signal_id, after -> 'survivor'
        from user_events
        where action = 'merge'
        union all
        select m.event_id, a.id::uuid, jsonb_build_object('status', 'merged')
        from user_events m
        cross join lateral jsonb_array_elements_text(m.after -> 'absorbed') a (id)
        where m.action = 'merge'
        union all
        select event_id, signal_id, after -> 'signal'
        from user_events
        where action = 'undo'
        union all
        select u.event_id, (b.snapshot ->> 'signal_id')::uuid, b.snapshot
        from user_events u
        join user_events m on m.event_id = (u.after ->> 'undoes')::bigint and m.action = 'merge'
        cross join lateral jsonb_array_elements(m.before -> 'absorbed') b (snapshot)
        where u.action = 'undo'
    ),

    -- each signal as its last event left it (event ids follow the order in which changes were written)
    latest as (
        select distinct on (signal_id) signal_id, snapshot
        from states
        order by signal_id, event_id desc
    ),

    -- the user's signals active and valid at `at`, of the profile and of the agent asked for (events from
    -- before scopes, m020, have no agent_id key: the profile's; from before validity, m022, no valid_to)
    scoped as (
        select
            signal_id,
            snapshot ->> 'agent_id' as agent_id,
            snapshot ->> 'content' as content,
            snapshot ->> 'origin' as origin,
            snapshot ->> 'tier' as tier,
            (snapshot ->> 'mention_count')::integer as mention_count,
            (snapshot ->> 'last_seen_at')::timestamptz as last_seen_at,
            (snapshot ->> 'created_at')::timestamptz as created_at
        from latest
        where snapshot ->> 'status' = 'active'
          and (snapshot ->> 'agent_id' is null or snapshot ->> 'agent_id' = p_agent_id)
          -- a fact whose validity ended at or before `at` is not shown, whenever the run that ended it ran
          and coalesce((snapshot ->> 'valid_to')::timestamptz > p_at, true)
    ),

    -- an agent's line that repeats a profile line is shown once, as the profile's (agent_context.sql)
    active as (
        select * from scoped s
        where s.agent_id is null or not exists (
            select from scoped p where p.agent_id is null and lower(p.content) = lower(s.content)
        )
    ),

    scored as (
        select
            active.*,
            case
                when p_mention_boost is null
                    then signals.retention(last_seen_at, mention_count, p_at)
                else signals.retention(last_seen_at, mention_count, p_at, mention_boost => p_mention_boost)
            end as decay_score
        from active
    ),

    -- user_signals.sql's buckets and ranks, per scope
    manual as (
        select 'manual'::text as bucket, content, agent_id is null as profile,
               row_number() over (partition by agent_id order by created_at, signal_id) as rank
        from scored
        where origin = 'manual'
    ),

    inferred as (
        select tier as bucket, content, agent_id is null as profile,
               row_number() over (
                   partition by agent_id, tier order by decay_score desc, last_seen_at desc, signal_id
               ) as rank
        from scored
        where origin = 'inferred'
    ),

    -- the bucket sizes, read once
    sizes as (
        select signals.limit('core_cap') as core_cap, signals.limit('contextual_limit') as contextual_limit
    ),

    buckets as (
        select * from manual
        union all
        select inferred.* from inferred, sizes
        where (bucket = 'core' and rank <= sizes.core_cap)
           or (bucket = 'contextual' and rank <= sizes.contextual_limit)
    ),

    -- user_context.sql's and agent_context.sql's rendering (m020's functions)
    sections as (
        select
            bucket,
            count(*) as signal_count,
            signals.context_order(bucket) as bucket_order,
            signals.context_heading(bucket) || E'\n'
            || string_agg(signals.context_bullet(content), E'\n' order by profile, rank) as section
        from buckets
        group by bucket
    ),

    body as (
        select
            string_agg(section, E'\n' order by bucket_order) as body,
            coalesce(sum(signal_count) filter (where bucket = 'manual'), 0) as manual_count,
            coalesce(sum(signal_count) filter (where bucket = 'core'), 0) as core_count,
            coalesce(sum(signal_count) filter (where bucket = 'contextual'), 0) as contextual_count
        from sections
    )

    select
        signals.context_block(body.body),
        body.manual_count::integer,
        body.core_count::integer,
        body.contextual_count::integer
    from body
    where exists (select from user_events)
$$;


-- A signal's text is never rewritten any more (an update writes a new version): the rewrites' staging table
-- (m019) goes.
drop table staging.apply_rewrites;

-- A fill may narrow a profile fact to an agent (sql/queries/apply_validity.sql): a change of scope changes
-- the views, so it marks the user dirty like the other columns the views read (m005's trigger).
drop trigger signals_mark_dirty on signals.signals;
create trigger signals_mark_dirty
    after insert or delete or update of content, kind, tier, origin, status, mention_count, last_seen_at, agent_id
    on signals.signals
    for each row execute function signals.mark_dirty();
