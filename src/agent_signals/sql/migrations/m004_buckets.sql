-- The three buckets: the embedding column (its dimension is set from configuration by `agent-signals db
-- migrate`) and the role of the user paths. The cap on active inferred core signals and the refusal of any
-- change to a user's own (manual) signals that does not come through the user paths are triggers of
-- sql/functions/40_guards.sql; the user paths are sql/functions/50_user_paths.sql.

alter table signals.signals add column embedding vector;
alter table ops.runs add column embedding_calls integer not null default 0,
                     add column embedding_tokens bigint not null default 0;

-- Manual signals: only the user paths (functions owned by agent_signals_user_paths) may write them.
do $$
begin
    if not exists (select from pg_roles where rolname = 'agent_signals_user_paths') then
        create role agent_signals_user_paths nologin;
    end if;
exception when duplicate_object or unique_violation then
    null;  -- created meanwhile by a migration of another database on this server
end;
$$;
grant usage on schema signals to agent_signals_user_paths;
grant select, insert, update on signals.signals to agent_signals_user_paths;
grant select, insert, delete on signals.evidence to agent_signals_user_paths;
grant select, insert on signals.events to agent_signals_user_paths;
