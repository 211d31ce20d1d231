-- The batches a run sent that the provider has not finished yet (those a run waits for: BATCH_WAIT_S).
select batch_key from ops.batches where run_id = %(run_id)s and status = 'submitted'
