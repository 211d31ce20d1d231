-- Ended batches with no request left waiting are collected.
update ops.batches b set status = 'collected', collected_at = now()
where b.status = 'ended'
  and not exists (select 1 from ops.batch_requests r where r.batch_key = b.batch_key and r.status = 'waiting')
returning b.batch_key
