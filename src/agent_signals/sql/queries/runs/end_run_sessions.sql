-- An interrupted run's sessions (its pools' connections, named after the run) are ended, waiting up to
-- 5 s for each to go: their open transactions roll back, so the run commits nothing after this returns.
-- Returns how many did not end in time.
select count(*) filter (where not pg_terminate_backend(pid, 5000)) as still_running
from pg_stat_activity
where application_name = %(application_name)s and pid <> pg_backend_pid()
