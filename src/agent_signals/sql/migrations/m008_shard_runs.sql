-- Shards processed as their own flow runs (AGENT_SIGNALS_RUNNER=deployments): each writes its figures
-- here when it ends, and the run that handed them out adds them to its row of ops.runs. Aggregates only:
-- no user id, nothing for `forget` to remove.

create table ops.run_shards (
    run_id        uuid not null references ops.runs (run_id),
    batch         uuid not null,   -- one hand-out of shards (a backfill hands out one per slice)
    shard         integer not null,
    part          integer not null,
    flow_run_id   uuid,
    stats         jsonb not null,
    finished_at   timestamptz not null default now(),
    primary key (run_id, batch, shard, part)
);

grant select, insert, update on ops.run_shards to agent_signals_pipeline;
