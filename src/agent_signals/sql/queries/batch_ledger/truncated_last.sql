-- The users whose last extraction request of a batch failed with its answer cut at max_tokens: their next
-- request is sent with a larger budget (as a direct call asks again at once).
select user_id
from (
    select distinct on (user_id) user_id, status, error_kind
    from ops.batch_requests
    where user_id = any(%(user_ids)s) and purpose = 'extract' and status <> 'waiting'
    order by user_id, closed_at desc, call_index desc
) last
where status = 'failed' and error_kind = 'truncated'
