{{
    config(
        materialized='incremental',
        unique_key='user_id',
        incremental_strategy='delete+insert',
        on_schema_change='fail',
        indexes=[{'columns': ['user_id'], 'unique': True}],
        pre_hook=["{{ lock_model() }}", "{{ delete_covered_users() }}"],
    )
}}
-- depends_on: {{ source('ops', 'touched_users') }}

-- One block per user, ready to paste into a system prompt. Readers:
--   select context_markdown from context.user_context where user_id = $1   (unique index on user_id)

with covered_scopes as (
    select *
    from {{ ref('user_signals') }}
    where {{ touched_users_only('user_id') }}
),

covered_signals as (
    select *
    from covered_scopes
    where agent_id is null  -- the profile: what holds for every agent (context.agent_context adds an agent's)
),

covered_summaries as (
    select *
    from {{ ref('stg_summaries') }}
    where {{ touched_users_only('user_id') }}
),

users as (  -- a user with only an agent's signals has an empty profile block
    select user_id from covered_scopes
    union
    select user_id from covered_summaries
),

sections as (
    select
        user_id,
        bucket,
        count(*) as signal_count,
        signals.context_order(bucket) as bucket_order,  -- the block's rendering: m020
        signals.context_heading(bucket) || E'\n'
        || string_agg(signals.context_bullet(content), E'\n' order by rank) as section
    from covered_signals
    group by user_id, bucket
),

per_user as (
    select
        user_id,
        string_agg(section, E'\n' order by bucket_order) as body,
        coalesce(sum(signal_count) filter (where bucket = 'manual'), 0) as manual_count,
        coalesce(sum(signal_count) filter (where bucket = 'core'), 0) as core_count,
        coalesce(sum(signal_count) filter (where bucket = 'contextual'), 0) as contextual_count
    from sections
    group by user_id
)

select
    users.user_id,
    signals.context_block(per_user.body) as context_markdown,
    coalesce(per_user.manual_count, 0)::integer as manual_count,
    coalesce(per_user.core_count, 0)::integer as core_count,
    coalesce(per_user.contextual_count, 0)::integer as contextual_count,
    covered_summaries.summary,
    coalesce(covered_summaries.fingerprint, signals.fingerprint(users.user_id)) as fingerprint,
    now() as refreshed_at
from users
left join per_user on per_user.user_id = users.user_id
left join covered_summaries on covered_summaries.user_id = users.user_id
