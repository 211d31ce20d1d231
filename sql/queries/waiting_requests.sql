-- The waiting batch requests of a shard's users, with their batch: the users in a batch still out are left
-- alone; those whose batch ended have their answers applied.
select r.user_id, r.batch_key, r.custom_id, r.call_index, r.calls, r.messages, r.signals, r.max_tokens,
       b.status as batch_status, b.provider_batch_id, b.provider_status, b.output_file_id, b.error_file_id,
       b.purpose, b.model, b.prompt_version
from ops.batch_requests r
join ops.batches b on b.batch_key = r.batch_key
where r.user_id = any(%(user_ids)s) and r.status = 'waiting'
order by r.user_id, r.batch_key, r.call_index
