-- The provider's word on a batch still out (validating, in_progress, finalizing, cancelling).
update ops.batches set provider_status = %(provider_status)s
where batch_key = %(batch_key)s and status = 'submitted'
