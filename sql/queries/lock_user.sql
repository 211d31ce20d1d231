-- Serialises writes for one user for the rest of the transaction.
select pg_advisory_xact_lock(hashtextextended('agent_signals.user:' || %(user_id)s, 0))
