-- The messages read by each of a user's failed attempts in a row that count against them (ops.failures not
-- resolved yet, oldest first).
select messages
from ops.failures
where user_id = %(user_id)s and resolved_at is null and counted
order by failure_id
