-- The open failures of users whose write succeeded, resolved by this run.
update ops.failures
set resolved_at = now(), resolved_by_run = %(run_id)s
where user_id = any(%(user_ids)s::text[]) and resolved_at is null
