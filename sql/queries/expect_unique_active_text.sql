-- Two active signals of a user this run touched with the same normalized text (must be none).
select user_id, normalized, count(*) as copies
from {batch}
where user_id = any(ops.run_users(%(run_id)s))
  and status = 'active'
group by user_id, normalized
having count(*) > 1
