-- Users changed more than an hour before this run started that the context views still have not
-- caught up with (a warning: the refresh of an earlier run failed or was skipped).
select d.user_id
from signals.dirty_users d
join ops.runs r on r.run_id = %(run_id)s
where d.since < r.started_at - interval '1 hour'
  and d.user_id in (select user_id from {batch})
