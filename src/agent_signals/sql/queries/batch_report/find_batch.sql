-- One batch of the ledger, named by its key or by the provider's batch id (`agent-signals batches cancel`):
-- where it stands, the model its requests were sent with, and whether the run that prepared it still runs.
select b.batch_key, b.provider_batch_id, b.status, b.provider_status, b.model, b.requests,
       r.status = 'running' as run_running
from ops.batches b
join ops.runs r on r.run_id = b.run_id
where b.batch_key = %(batch_key)s or b.provider_batch_id = %(key)s
