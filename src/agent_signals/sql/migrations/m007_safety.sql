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

-- Only the user paths run the functions that touch the users' own signals.
revoke execute on function signals.add_signal(text, text, text), signals.edit_signal(text, uuid, text, text),
    signals.delete_signal(text, uuid) from public;
grant execute on function signals.add_signal(text, text, text), signals.edit_signal(text, uuid, text, text),
    signals.delete_signal(text, uuid) to agent_signals_app;

-- ---------------------------------------------------------------------------------------------------
-- Forgetting a user: everything derived about them goes (signals of both origins, evidence, events,
-- summaries, quarantine, failures with raw answers, view rows); one row in ops.forgotten says it happened.
-- Their conversations' watermarks stay, so old messages are not learned again.
create or replace function signals.refuse_event_change() returns trigger
language plpgsql as $$
begin
    if tg_op = 'DELETE' and current_user = 'agent_signals_user_paths'
       and current_setting('agent_signals.forgetting', true) = 'on' then
        return old;  -- forget_user, the one path that may remove events
    end if;
    raise exception 'signals.events is append-only (% refused)', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

grant select, delete on signals.signals, signals.events, signals.summaries, signals.dirty_users to agent_signals_user_paths;
grant select, delete on ops.failures, ops.quarantine, ops.touched_users to agent_signals_user_paths;
grant usage on schema ops, context to agent_signals_user_paths;
grant select, insert on ops.forgotten to agent_signals_user_paths;
grant usage on all sequences in schema ops to agent_signals_user_paths;
grant select, delete on all tables in schema context to agent_signals_user_paths;
alter default privileges in schema context grant select, delete on tables to agent_signals_user_paths;

create function signals.forget_user(p_user_id text)
returns integer
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    removed integer;
begin
    perform signals.lock_user(p_user_id);
    perform set_config('agent_signals.forgetting', 'on', true);
    delete from signals.evidence e using signals.signals s
    where e.signal_id = s.signal_id and s.user_id = p_user_id;
    delete from signals.events where user_id = p_user_id;
    -- merged signals point at their survivors: clear the pointers before the rows go
    update signals.signals set merged_into = null where user_id = p_user_id and merged_into is not null;
    delete from signals.signals where user_id = p_user_id;
    get diagnostics removed = row_count;
    delete from signals.summaries where user_id = p_user_id;
    delete from signals.dirty_users where user_id = p_user_id;
    delete from ops.failures where user_id = p_user_id;
    delete from ops.quarantine where user_id = p_user_id;
    delete from ops.touched_users where user_id = p_user_id;
    if to_regclass('context.user_signals') is not null then
        execute 'delete from context.user_signals where user_id = $1' using p_user_id;
    end if;
    if to_regclass('context.user_context') is not null then
        execute 'delete from context.user_context where user_id = $1' using p_user_id;
    end if;
    perform set_config('agent_signals.forgetting', 'off', true);
    insert into ops.forgotten (user_id, signals) values (p_user_id, removed);
    return removed;
end;
$$;
alter function signals.forget_user(text) owner to agent_signals_user_paths;
revoke execute on function signals.forget_user(text) from public;
grant execute on function signals.forget_user(text) to agent_signals_app;
