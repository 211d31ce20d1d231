select user_id, stage, error_kind, left(message, 200) as message
from ops.failures
where run_id = %(run_id)s
order by failure_id
limit 20
