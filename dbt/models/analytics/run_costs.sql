-- One row per run: duration, volume, model usage and cost.
select
    run_id,
    kind,
    status,
    started_at,
    finished_at,
    extract(epoch from (finished_at - started_at))::double precision as duration_s,
    users,
    conversations,
    messages,
    llm_calls,
    prompt_tokens,
    completion_tokens,
    embedding_calls,
    embedding_tokens,
    cost_usd,
    failures,
    case when users > 0 then round(cost_usd / users, 6) end as cost_per_user,
    refresh_s,
    model,
    prompt_version
from {{ ref('stg_runs') }}
