-- Hand the dirty users to this run's refresh (ops.touched_users); they stay dirty until it succeeds.
insert into ops.touched_users (run_id, user_id)
select %(run_id)s, user_id from signals.dirty_users
on conflict do nothing
