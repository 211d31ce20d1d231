-- The users with a request still waiting in these batches.
select distinct user_id from ops.batch_requests
where batch_key = any(%(batch_keys)s) and status = 'waiting'
order by user_id
