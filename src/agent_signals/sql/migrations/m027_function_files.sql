-- The SQL functions, views and triggers are defined in sql/functions/ (`create or replace`, applied by
-- `agent-signals db migrate` after the migrations, in the order of their file names); the migrations keep the
-- tables, columns and data. The function files applied, with their checksums: the check at each run's start
-- compares them with the code's.
create table ops.schema_functions (
    name        text primary key,
    checksum    text not null,
    applied_at  timestamptz not null default now()
);
grant select on ops.schema_functions to agent_signals_pipeline;

-- The decay functions take the formula's constants as one value (sql/functions/30_decay.sql): the version
-- of due_for_archive that took them one by one goes.
drop function if exists signals.due_for_archive(timestamptz, double precision, double precision, double precision);
