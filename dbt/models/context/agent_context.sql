{{
    config(
        materialized='incremental',
        unique_key='user_id',
        incremental_strategy='delete+insert',
        on_schema_change='fail',
        indexes=[{'columns': ['user_id', 'agent_id'], 'unique': True}],
        pre_hook=["{{ lock_model() }}", "{{ delete_covered_users() }}"],
    )
}}
-- depends_on: {{ source('ops', 'touched_users') }}

-- One block per user and agent: the user's profile (what holds for every agent, as in user_context) and what
-- is about their relationship with that agent, under the same headings, the agent's own lines first in each.
-- Readers:
--   select context_markdown from context.agent_context where user_id = $1 and agent_id = $2   (unique index)
-- An agent with no row here (the user never talked with it, or has not been refreshed since) reads
-- context.user_context.

with covered as (
    select *
    from {{ ref('user_signals') }}
    where {{ touched_users_only('user_id') }}
),

agents as (  -- the agents a covered user talked with, or has signals of
    select distinct user_id, agent_id
    from {{ source('source', 'conversations') }}
    where agent_id is not null and {{ touched_users_only('user_id') }}
    union
    select distinct user_id, agent_id
    from covered
    where agent_id is not null
),

shown as (  -- an agent's line that repeats a profile line is shown once, as the profile's
    select a.user_id, a.agent_id, s.bucket, s.content, s.agent_id is null as profile, s.rank
    from agents a
    join covered s on s.user_id = a.user_id and (s.agent_id is null or s.agent_id = a.agent_id)
    where s.agent_id is null or not exists (
        select from covered p
        where p.user_id = s.user_id and p.agent_id is null and lower(p.content) = lower(s.content)
    )
),

sections as (
    select
        user_id,
        agent_id,
        bucket,
        count(*) as signal_count,
        signals.context_order(bucket) as bucket_order,  -- the block's rendering: m020
        signals.context_heading(bucket) || E'\n'
        || string_agg(signals.context_bullet(content), E'\n' order by profile, rank) as section
    from shown
    group by user_id, agent_id, bucket
),

per_agent as (
    select
        user_id,
        agent_id,
        string_agg(section, E'\n' order by bucket_order) as body,
        coalesce(sum(signal_count) filter (where bucket = 'manual'), 0) as manual_count,
        coalesce(sum(signal_count) filter (where bucket = 'core'), 0) as core_count,
        coalesce(sum(signal_count) filter (where bucket = 'contextual'), 0) as contextual_count
    from sections
    group by user_id, agent_id
)

select
    agents.user_id,
    agents.agent_id,
    signals.context_block(per_agent.body) as context_markdown,
    coalesce(per_agent.manual_count, 0)::integer as manual_count,
    coalesce(per_agent.core_count, 0)::integer as core_count,
    coalesce(per_agent.contextual_count, 0)::integer as contextual_count,
    summaries.summary,
    now() as refreshed_at
from agents
left join per_agent on per_agent.user_id = agents.user_id and per_agent.agent_id = agents.agent_id
left join {{ ref('stg_summaries') }} summaries on summaries.user_id = agents.user_id
