-- The read path's inputs: per-user summaries (rebuilt only when the user's active signal set changed,
-- which signals.fingerprint decides: sql/functions/70_read_path.sql) and the users each run touched (what the
-- incremental views refresh).

create table signals.summaries (
    user_id         text primary key,
    summary         text not null,
    fingerprint     text not null,
    signal_count    integer not null,
    model           text,
    prompt_version  text,
    run_id          uuid,
    updated_at      timestamptz not null default now()
);

create table ops.touched_users (
    run_id   uuid not null references ops.runs (run_id),
    user_id  text not null,
    primary key (run_id, user_id)
);

alter table ops.runs add column llm_calls_by_purpose jsonb not null default '{}'::jsonb,
                     add column warnings jsonb not null default '[]'::jsonb,
                     add column refresh_s double precision;

-- Users whose signals changed since the views last refreshed them, whoever changed them (a run, the
-- user paths, an operator): marked by a trigger (sql/functions/40_guards.sql).
create table signals.dirty_users (
    user_id  text primary key,
    since    timestamptz not null default now()
);
grant select, insert, update on signals.dirty_users to agent_signals_user_paths;
