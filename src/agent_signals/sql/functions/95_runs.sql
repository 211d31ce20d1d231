-- The runs ledger.

-- A run's call figures as ops.runs holds them (zeros for a run that made no call): chat calls by purpose
-- and by mode, embedding calls apart, and the cost of both.
create or replace function ops.run_call_figures(p_run_id uuid)
returns table (llm_calls integer, llm_calls_by_purpose jsonb, prompt_tokens bigint, cached_prompt_tokens bigint,
               completion_tokens bigint, cost_usd numeric, embedding_calls integer, embedding_tokens bigint,
               by_mode jsonb)
language sql stable as $$
    with calls as (select * from ops.run_calls where run_id = p_run_id),
    chat as (select * from calls where purpose <> 'embed'),
    by_purpose as (select purpose, sum(calls) as calls from chat group by purpose),
    by_mode as (
        select mode, jsonb_build_object('calls', sum(calls), 'prompt_tokens', sum(prompt_tokens),
                                        'completion_tokens', sum(completion_tokens),
                                        'cost_usd', round(sum(cost_usd)::numeric, 6)) as figures
        from chat group by mode
    )
    select coalesce((select sum(calls) from chat), 0)::integer,
           coalesce((select jsonb_object_agg(purpose, calls) from by_purpose), '{}'::jsonb),
           coalesce((select sum(prompt_tokens) from chat), 0)::bigint,
           coalesce((select sum(cached_prompt_tokens) from chat), 0)::bigint,
           coalesce((select sum(completion_tokens) from chat), 0)::bigint,
           round(coalesce((select sum(cost_usd) from calls), 0)::numeric, 6),
           coalesce((select sum(calls) from calls where purpose = 'embed'), 0)::integer,
           coalesce((select sum(prompt_tokens) from calls where purpose = 'embed'), 0)::bigint,
           coalesce((select jsonb_object_agg(mode, figures) from by_mode), '{}'::jsonb)
$$;
