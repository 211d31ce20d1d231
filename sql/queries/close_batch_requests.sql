-- A user's waiting requests of a batch closed (%(status)s: applied, in the transaction that writes the answers;
-- failed; unanswered). Returns how many were still waiting: 0 means another run closed them first.
update ops.batch_requests
set status = %(status)s, error_kind = %(error_kind)s, closed_at = now(), closed_by_run = %(run_id)s
where batch_key = %(batch_key)s and user_id = %(user_id)s and status = 'waiting'
