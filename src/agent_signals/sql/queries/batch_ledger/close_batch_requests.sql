-- The waiting requests of these (batch, user) pairs closed (%(status)s: applied, in the transaction that
-- writes the answers; failed; unanswered), in one statement. Returns the pairs that had a request still
-- waiting: a pair missing was closed by another run first.
update ops.batch_requests r
set status = %(status)s, error_kind = %(error_kind)s, closed_at = now(), closed_by_run = %(run_id)s
from unnest(%(batch_keys)s::uuid[], %(user_ids)s::text[]) as given (batch_key, user_id)
where r.batch_key = given.batch_key and r.user_id = given.user_id and r.status = 'waiting'
returning r.batch_key, r.user_id
