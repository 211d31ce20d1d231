-- The MCP server (`agent-signals mcp`, docs/agents.md): agents read and remember through it, never with the
-- pipeline's or the application's privileges.
--
-- agent_signals_mcp (NOLOGIN: grant it to the login role the server connects as, which the server then `set
-- role`s to) reads the context views and calls the functions of schema `mcp` (sql/functions/97_mcp.sql), and
-- nothing else: no table of signals, source or ops, no other schema. The functions are security definer with
-- a fixed search_path; each does one thing an agent may ask.
do $$
begin
    if not exists (select from pg_roles where rolname = 'agent_signals_mcp') then
        begin
            create role agent_signals_mcp nologin;
        exception when duplicate_object or unique_violation then
            null;  -- created meanwhile by a migration of another database on this server
        end;
    end if;
end;
$$;

create schema if not exists mcp;
revoke all on schema mcp from public;
grant usage on schema mcp to agent_signals_mcp;
-- the functions' owners call one another (97_mcp.sql): user_known runs as the pipeline, the rest as the user
-- paths' role
grant usage on schema mcp to agent_signals_user_paths, agent_signals_pipeline;

-- The context views, those there now and those dbt creates later (as m007 grants them to the application).
grant usage on schema context to agent_signals_mcp;
grant select on all tables in schema context to agent_signals_mcp;
alter default privileges in schema context grant select on tables to agent_signals_mcp;
do $$
begin
    execute 'alter default privileges for role agent_signals_pipeline in schema context '
            'grant select on tables to agent_signals_mcp';
exception when insufficient_privilege then
    raise notice 'views built by agent_signals_pipeline need grants: run this migration as a superuser';
end;
$$;

-- What an agent asked to remember and screening could not decide waits for review as the user's own signal
-- would be once approved: a manual signal of status pending, with why it was held (review_reason). Until
-- now only the pipeline's candidates were held (m023); a held manual signal always says why.
alter table signals.signals drop constraint signals_review_origin_check;
alter table signals.signals add constraint signals_review_origin_check
    check (status not in ('pending', 'rejected') or origin = 'inferred' or review_reason is not null);
