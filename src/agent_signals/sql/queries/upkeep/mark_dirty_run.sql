-- The users a run's table expectations read (ops.run_users, m018) marked dirty again after a critical one
-- failed: the next run reads them again (and fails again until the rows are put right), as the check of
-- the whole table did every run.
insert into signals.dirty_users (user_id) select unnest(ops.run_users(%(run_id)s)) on conflict do nothing
