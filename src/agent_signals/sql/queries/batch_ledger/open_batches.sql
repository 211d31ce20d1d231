-- Batches not yet collected, oldest first, with whether the run that sent them is still running (a
-- `preparing` batch of a run that is not may have been created at the provider and never recorded).
select b.batch_key, b.provider_batch_id, b.run_id, b.purpose, b.model, b.prompt_version, b.status,
       b.provider_status, b.requests, b.created_at, b.submitted_at, r.status = 'running' as run_running,
       (select count(distinct q.user_id) from ops.batch_requests q
        where q.batch_key = b.batch_key and q.status = 'waiting') as users_waiting
from ops.batches b
join ops.runs r on r.run_id = b.run_id
where b.status in ('preparing', 'submitted', 'ended')
order by b.created_at, b.batch_key
