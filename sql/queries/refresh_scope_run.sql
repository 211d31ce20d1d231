-- Point the compiled refresh SQL (dbt var run_id = 'session') at one run's touched users, for this
-- transaction only.
select set_config('agent_signals.refresh_run_id', %(run_id)s, true)
