-- The covered users' rows of one incremental context model (dbt's delete_covered_users() pre-hook): a
-- user with no row left after the insert disappears from the view. Probed by the index on user_id.
delete from {relation}
where user_id = any(current_setting('agent_signals.refresh_users')::text[])
