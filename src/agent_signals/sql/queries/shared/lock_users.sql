-- Serialises writes for these users for the rest of the transaction (every write of a user takes it), in
-- user id order so that two groups never wait on each other crosswise.
select count(pg_advisory_xact_lock(hashtextextended('agent_signals.user:' || u, 0)))
from (select u from unnest(%(user_ids)s::text[]) u order by u) ordered
