-- Users this run touched with more than the core cap of active inferred core signals (must be none; the
-- database also refuses them).
select user_id, count(*) as core
from {batch}
where user_id = any(ops.run_users(%(run_id)s))
  and origin = 'inferred' and tier = 'core' and status = 'active'
group by user_id
having count(*) > signals.limit('core_cap')
