-- The touched users' rows of one incremental context model (dbt's delete_covered_users() pre-hook): a
-- user with no row left after the insert disappears from the view. Probed by the index on user_id.
delete from {relation}
where user_id = any(array(
    select t.user_id from ops.touched_users t
    where t.run_id = current_setting('agent_signals.refresh_run_id')::uuid
))
