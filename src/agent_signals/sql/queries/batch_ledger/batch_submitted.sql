-- The provider created the batch: its id recorded (also for a batch found again after a crash).
update ops.batches
set provider_batch_id = %(provider_batch_id)s, status = 'submitted', provider_status = %(provider_status)s,
    submitted_at = coalesce(submitted_at, now())
where batch_key = %(batch_key)s and status = 'preparing'
