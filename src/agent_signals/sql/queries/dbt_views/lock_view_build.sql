-- One dbt build of the views per database at a time (a session lock, held until the builder's connection
-- closes): two runs that both find no views never both start the first build, which fails one of them on
-- `relation ... already exists`.
select pg_advisory_lock(hashtextextended('agent_signals.view_build:' || current_database(), 0))
