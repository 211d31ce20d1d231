-- The users a run's refresh rebuilds (ops.touched_users), in a stable order.
select user_id from ops.touched_users where run_id = %(run_id)s order by user_id
