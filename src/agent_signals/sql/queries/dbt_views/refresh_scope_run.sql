-- Point the compiled refresh SQL (dbt var run_id = 'session') at the users it rebuilds, for this
-- transaction only: the users given, or else one run's touched users.
select set_config(
    'agent_signals.refresh_users',
    coalesce(
        %(user_ids)s::text[],
        array(select t.user_id from ops.touched_users t where t.run_id = %(run_id)s::uuid)
    )::text,
    true
)
