update ops.failures
set resolved_at = now(), resolved_by_run = %(run_id)s
where user_id = %(user_id)s and resolved_at is null
