-- Safety: a quarantine for candidates that read as instructions to the agent, retraction of signals whose
-- source conversations were deleted, forgetting a user, and least-privilege roles.

create table ops.quarantine (
    quarantine_id  bigint generated always as identity primary key,
    run_id         uuid,
    user_id        text not null,
    content        text not null,
    kind           text not null,
    tier           text not null,
    evidence       jsonb not null,
    reason         text not null,
    created_at     timestamptz not null default now(),
    reviewed_at    timestamptz,
    decision       text check (decision in ('accepted', 'rejected'))
);
create index quarantine_user_idx on ops.quarantine (user_id);

-- A signal whose every piece of evidence came from conversations that no longer exist is retracted.
alter table signals.signals drop constraint signals_status_check;
alter table signals.signals add constraint signals_status_check
    check (status in ('active', 'archived', 'merged', 'deleted', 'retracted'));

-- What `forget` leaves behind: only that it happened.
create table ops.forgotten (
    forgotten_id  bigint generated always as identity primary key,
    user_id       text not null,
    signals       integer not null,
    at            timestamptz not null default now()
);

-- ---------------------------------------------------------------------------------------------------
-- Roles (NOLOGIN: grant them to the login roles a deployment uses, or `set role`).
do $$
declare
    name text;
begin
    foreach name in array array['agent_signals_pipeline', 'agent_signals_app', 'agent_signals_analyst'] loop
        if not exists (select from pg_roles where rolname = name) then
            begin
                execute format('create role %I nologin', name);
            exception when duplicate_object or unique_violation then
                null;  -- created meanwhile by a migration of another database on this server
            end;
        end if;
    end loop;
end;
$$;

create schema if not exists context;
create schema if not exists analytics;

-- The pipeline: reads the source contract, writes signals and the ledger, builds the views. It owns no
-- table, so it cannot disable the triggers that protect the users' own signals.
grant usage on schema source, signals, ops to agent_signals_pipeline;
grant usage, create on schema context, analytics to agent_signals_pipeline;
grant select on all tables in schema source to agent_signals_pipeline;
grant select, insert, update on signals.signals, signals.watermarks, signals.summaries, signals.dirty_users
    to agent_signals_pipeline;
grant delete on signals.summaries, signals.dirty_users to agent_signals_pipeline;
grant select, insert, delete on signals.evidence to agent_signals_pipeline;
grant select, insert on signals.events to agent_signals_pipeline;
grant select, insert, update on all tables in schema ops to agent_signals_pipeline;
grant delete on ops.touched_users to agent_signals_pipeline;
grant usage on all sequences in schema signals, ops to agent_signals_pipeline;

-- The application: manages the users' own signals through the SQL functions only, reads signals and
-- the context views.
grant usage on schema signals, context to agent_signals_app;
grant select on signals.signals, signals.summaries to agent_signals_app;

-- Analysts: the context and analytics schemas, nothing else (never raw messages).
grant usage on schema context, analytics to agent_signals_analyst;

-- Tables in context and analytics, those there now and those dbt creates later, are readable by the app
-- and analysts.
grant select on all tables in schema context to agent_signals_app, agent_signals_analyst;
grant select on all tables in schema analytics to agent_signals_analyst;
alter default privileges in schema context grant select on tables to agent_signals_app, agent_signals_analyst;
alter default privileges in schema analytics grant select on tables to agent_signals_analyst;
do $$
begin
    execute 'alter default privileges for role agent_signals_pipeline in schema context '
            'grant select on tables to agent_signals_app, agent_signals_analyst';
    execute 'alter default privileges for role agent_signals_pipeline in schema analytics '
            'grant select on tables to agent_signals_analyst';
exception when insufficient_privilege then
    raise notice 'views built by agent_signals_pipeline need grants: run this migration as a superuser';
end;
$$;

-- Forgetting a user (signals.forget_user, sql/functions/60_forget.sql) runs as the user paths' role: what it
-- reads and removes.
grant select, delete on signals.signals, signals.events, signals.summaries, signals.dirty_users to agent_signals_user_paths;
grant select, delete on ops.failures, ops.quarantine, ops.touched_users to agent_signals_user_paths;
grant usage on schema ops, context to agent_signals_user_paths;
grant select, insert on ops.forgotten to agent_signals_user_paths;
grant usage on all sequences in schema ops to agent_signals_user_paths;
grant select, delete on all tables in schema context to agent_signals_user_paths;
alter default privileges in schema context grant select, delete on tables to agent_signals_user_paths;
