-- Users this run changed whose row in context.user_context is missing or older than the run.
select t.user_id
from ops.touched_users t
join ops.runs r on r.run_id = t.run_id
left join context.user_context c on c.user_id = t.user_id
where t.run_id = %(run_id)s
  and exists (select 1 from {batch} s where s.user_id = t.user_id and s.status = 'active')
  and (c.refreshed_at is null or c.refreshed_at < r.started_at)
