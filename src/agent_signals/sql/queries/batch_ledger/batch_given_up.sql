-- A batch that will never be answered (%(status)s: `abandoned`, never created at the provider or lost;
-- `unsent`, the provider refused it): its waiting requests are closed `unanswered`, their users pending again.
with given_up as (
    update ops.batches set status = %(status)s, error = %(error)s, ended_at = now()
    where batch_key = %(batch_key)s and status in ('preparing', 'submitted', 'ended')
    returning batch_key
)
update ops.batch_requests r
set status = 'unanswered', closed_at = now(), closed_by_run = %(run_id)s
from given_up g
where r.batch_key = g.batch_key and r.status = 'waiting'
