-- The lock an incremental context model takes before rewriting users' rows: the same key as dbt's
-- lock_model() pre-hook, whose {{ this }} renders as "database"."schema"."name" (the relation given here
-- is "schema"."name"). One refresh at a time per model, held until the transaction ends.
select pg_advisory_xact_lock(
    hashtextextended('agent_signals.views:' || '"' || replace(current_database(), '"', '""') || '".' || %(relation)s, 0)
)
