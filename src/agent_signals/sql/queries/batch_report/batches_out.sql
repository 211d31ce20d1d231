-- The batches not collected yet, for the run report and `agent-signals batches list`: age from when they
-- were sent (or prepared), users still waiting for their answers.
select b.batch_key, coalesce(b.provider_batch_id, '-') as provider_batch_id, b.status,
       coalesce(b.provider_status, '-') as provider_status, b.model, b.prompt_version, b.requests,
       (select count(distinct q.user_id) from ops.batch_requests q
        where q.batch_key = b.batch_key and q.status = 'waiting') as users_waiting,
       extract(epoch from now() - coalesce(b.submitted_at, b.created_at))::float8 as age_s
from ops.batches b
where b.status in ('preparing', 'submitted', 'ended')
order by b.created_at, b.batch_key
