-- Every model call a run made, recorded as the answer comes back (issue 33): before, a run's calls, tokens
-- and cost reached ops.runs only when a shard ended, so a run interrupted, killed or cut off from its
-- database showed none of the requests it had already paid for. Each part of a run (in any process) adds
-- what it spent here, by purpose and mode; every write of the run's row (update_run.sql, and
-- abandon_dead_runs.sql for a run whose process died) reads its call figures from these rows.
create table ops.run_calls (
    run_id                uuid not null references ops.runs (run_id),
    purpose               text not null,   -- extract, reconcile, summarize; embed (embedding calls)
    mode                  text not null,   -- direct, or batch (an answer read from a provider batch)
    calls                 integer not null default 0,
    prompt_tokens         bigint not null default 0,
    cached_prompt_tokens  bigint not null default 0,
    completion_tokens     bigint not null default 0,
    cost_usd              double precision not null default 0,  -- summed unrounded; ops.runs rounds
    primary key (run_id, purpose, mode)
);

grant select, insert, update on ops.run_calls to agent_signals_pipeline;

-- A run's call figures as ops.runs holds them: ops.run_call_figures, sql/functions/95_runs.sql.
