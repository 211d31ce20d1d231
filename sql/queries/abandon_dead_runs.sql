-- Runs still marked running whose process is gone (their session lock is free) are marked abandoned;
-- their unfinished users are simply still pending, so the next run finishes them.
with dead as (
    select run_id
    from ops.runs
    where status = 'running'
      and pg_try_advisory_xact_lock(hashtextextended('agent_signals.run:' || run_id::text, 0))
)
update ops.runs r
set status = 'abandoned', finished_at = now(), error = 'the process running it died'
from dead
where r.run_id = dead.run_id
returning r.run_id
