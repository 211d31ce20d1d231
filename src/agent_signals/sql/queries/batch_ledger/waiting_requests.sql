-- The waiting batch requests of one purpose, of these users (null: of everyone), with their batch. Extract,
-- for a shard's users: those in a batch still out are left alone, those whose batch ended are collected.
select r.user_id, r.batch_key, r.custom_id, r.call_index, r.calls, r.messages, r.signals, r.max_tokens,
       b.status as batch_status, b.provider_batch_id, b.provider_status, b.output_file_id, b.error_file_id,
       r.fingerprint, b.model, b.prompt_version
from ops.batch_requests r
join ops.batches b on b.batch_key = r.batch_key
where (%(user_ids)s::text[] is null or r.user_id = any(%(user_ids)s)) and r.status = 'waiting' and r.purpose = %(purpose)s
order by r.user_id, r.batch_key, r.call_index
