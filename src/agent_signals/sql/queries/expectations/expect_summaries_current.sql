-- Users this run changed whose summary does not describe their current active signals (the summary
-- call failed; the next run retries).
select t.user_id
from ops.touched_users t
left join signals.summaries m on m.user_id = t.user_id
where t.run_id = %(run_id)s
  and exists (select 1 from {batch} s where s.user_id = t.user_id and s.status = 'active')
  and m.fingerprint is distinct from signals.fingerprint(t.user_id)
