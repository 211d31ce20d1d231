{{
    config(
        materialized='incremental',
        unique_key='user_id',
        incremental_strategy='delete+insert',
        on_schema_change='fail',
        indexes=[{'columns': ['user_id', 'agent_id', 'bucket', 'rank']}],
        pre_hook=["{{ lock_model() }}", "{{ delete_covered_users() }}"],
    )
}}
-- depends_on: {{ source('ops', 'touched_users') }}

-- The three buckets of each user's active signals, per scope (agent_id null: the profile; else one agent's):
-- all of the user's own (manual) signals, then the strongest inferred core and contextual ones (an agent's
-- inferred signals are contextual). On an incremental run only the touched users are rebuilt.

with active as (
    select *
    from {{ ref('stg_signals') }}
    where status = 'active'
      and {{ touched_users_only('user_id') }}
),

manual as (
    select
        *,
        'manual'::text as bucket,
        row_number() over (partition by user_id, agent_id order by created_at, signal_id) as rank
    from active
    where origin = 'manual'
),

inferred as (
    select
        *,
        tier as bucket,
        row_number() over (
            partition by user_id, agent_id, tier
            order by decay_score desc, last_seen_at desc, signal_id
        ) as rank
    from active
    where origin = 'inferred'
),

buckets as (
    select * from manual
    union all
    select * from inferred
    where (bucket = 'core' and rank <= {{ var('core_cap') }})
       or (bucket = 'contextual' and rank <= {{ var('contextual_limit') }})
)

select
    user_id,
    agent_id,
    bucket,
    rank::integer as rank,
    signal_id,
    content,
    kind,
    tier,
    origin,
    mention_count,
    last_seen_at,
    decay_score
from buckets
