-- Held by the run's own session for its whole life; released by PostgreSQL if the process dies.
select pg_advisory_lock(hashtextextended('agent_signals.run:' || %(run_id)s::text, 0))
