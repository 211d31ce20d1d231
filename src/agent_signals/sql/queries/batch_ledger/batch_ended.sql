-- The provider is done with the batch (completed, expired, cancelled or failed): where its answers are.
update ops.batches
set status = 'ended', provider_status = %(provider_status)s, output_file_id = %(output_file_id)s,
    error_file_id = %(error_file_id)s, answered = %(answered)s, failed = %(failed)s, error = %(error)s,
    ended_at = now()
where batch_key = %(batch_key)s and status = 'submitted'
