-- The shared limits (issue 17, point 4): one row per limit, written from src/agent_signals/limits.py by
-- `agent-signals db migrate` on every run of it, and read by SQL through signals.limit(name). The cap
-- trigger, the user paths and the content check read them here instead of their own literals.

create table signals.limits (
    name   text primary key,
    value  integer not null
);
grant select on signals.limits to agent_signals_pipeline, agent_signals_user_paths, agent_signals_app,
    agent_signals_analyst;

-- The cap is a limit: the trigger reads signals.limit('core_cap') (sql/functions/), signals.core_cap() goes.
drop function if exists signals.core_cap();

-- A signal's text: at most content_max_chars characters (m002 checked a looser 500), for every writer: a
-- trigger checks it (sql/functions/40_guards.sql).
alter table signals.signals drop constraint signals_content_check;
alter table signals.signals add constraint signals_content_check check (length(btrim(content)) >= 1);
