-- The rendering of a context block, one copy for context.user_context and context.agent_context (dbt) and
-- the as-of reads below: a bucket's heading and place, a signal's bullet (a line break inside a text would
-- break the list, so it becomes a space), the block's first line.
create or replace function signals.context_heading(p_bucket text) returns text
language sql immutable as $$
    select case p_bucket when 'manual' then '### Confirmed by the user'
                         when 'core' then '### Core identity'
                         else '### Recent context' end
$$;
create or replace function signals.context_order(p_bucket text) returns integer
language sql immutable as $$
    select case p_bucket when 'manual' then 1 when 'core' then 2 else 3 end
$$;
create or replace function signals.context_bullet(p_content text) returns text
language sql immutable as $$
    select '- ' || regexp_replace(p_content, '\s+', ' ', 'g')
$$;
create or replace function signals.context_block(p_body text) returns text
language sql immutable as $$
    select '## About this user' || coalesce(E'\n' || p_body, '')
$$;

-- As-of reads in plain SQL: a user's block as it would have been rendered at a past time, rebuilt from the
-- append-only signals.events (a change to a signal logs its row after the change, `after`; the exceptions,
-- the summary among them: docs/analysts.md, "The context at a past time").
--
--   select * from context.user_context_as_of('u000003', '2026-11-01');
--
-- A signal's state at `at` is the `after` of its last event at or before `at` (the row a merge leaves is
-- `after.survivor` and its absorbed signals are `merged`; an undo's is `after.signal`, and an undone merge's
-- absorbed signals are back as `before.absorbed` held them). The active ones still valid at `at` are bucketed
-- and ranked as dbt/models/context/user_signals.sql ranks them, with the decay score computed at `at`
-- (signals.retention of the last_seen_at and mention_count at `at`), and rendered as
-- dbt/models/context/user_context.sql renders them. The bucket sizes are signals.limit('core_cap') and
-- signals.limit('contextual_limit'). The summary is not rebuilt: signals.summaries keeps only the current one.
--
-- One row for a user known at `at` (an event at or before it), the empty block ('## About this user', counts
-- 0) when none of their signals was active then; no row before the user's first event, for an unknown user,
-- or for a user forgotten since (forget_user removes their events). Cost: the user's events up to `at`, one
-- range of the index events_user_idx (user_id, at); nothing else is read.
--
-- mention_boost: the configuration's AGENT_SIGNALS_DECAY_MENTION_BOOST when it is not the default (null:
-- signals.retention's own default). AGENT_SIGNALS_DECAY_BASE_DAYS scales every signal's decay alike and so
-- never changes the order: it is not a parameter.
--
-- The rebuild, for the profile (p_agent_id null) or for one agent (the profile and that agent's signals, as
-- context.agent_context renders them: the agent's lines first in each section, a line the profile has shown
-- once). Called by the two functions below, which run it as agent_signals_pipeline.
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

revoke execute on function signals.context_as_of(text, text, timestamptz, double precision) from public;
grant execute on function signals.context_as_of(text, text, timestamptz, double precision) to agent_signals_pipeline;

-- A user's profile block at a past time, as context.user_context would have rendered it.
create or replace function context.user_context_as_of(
    user_id text,
    at timestamptz,
    mention_boost double precision default null
) returns table (context_markdown text, manual_count integer, core_count integer, contextual_count integer)
language sql stable security definer set search_path = pg_catalog, pg_temp as $$
    select * from signals.context_as_of(user_context_as_of.user_id, null, user_context_as_of.at,
                                        user_context_as_of.mention_boost)
$$;

-- One agent's block at a past time, as context.agent_context would have rendered it.
create or replace function context.agent_context_as_of(
    user_id text,
    agent_id text,
    at timestamptz,
    mention_boost double precision default null
) returns table (context_markdown text, manual_count integer, core_count integer, contextual_count integer)
language sql stable security definer set search_path = pg_catalog, pg_temp as $$
    select * from signals.context_as_of(agent_context_as_of.user_id, agent_context_as_of.agent_id,
                                        agent_context_as_of.at, agent_context_as_of.mention_boost)
$$;

-- They read signals.events, which analysts and the application cannot: they run as agent_signals_pipeline
-- (which reads the events and the limits) and return only what the views would have shown.
alter function context.user_context_as_of(text, timestamptz, double precision) owner to agent_signals_pipeline;
revoke execute on function context.user_context_as_of(text, timestamptz, double precision) from public;
grant execute on function context.user_context_as_of(text, timestamptz, double precision)
    to agent_signals_app, agent_signals_analyst, agent_signals_user_paths;
alter function context.agent_context_as_of(text, text, timestamptz, double precision) owner to agent_signals_pipeline;
revoke execute on function context.agent_context_as_of(text, text, timestamptz, double precision) from public;
grant execute on function context.agent_context_as_of(text, text, timestamptz, double precision)
    to agent_signals_app, agent_signals_analyst, agent_signals_user_paths;
