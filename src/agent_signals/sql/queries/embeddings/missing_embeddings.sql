-- Signals without an embedding (the user's own, added through the SQL functions), a batch at a time.
select signal_id, content
from signals.signals
where embedding is null and status <> 'merged'
  and (%(user_id)s::text is null or user_id = %(user_id)s)
order by signal_id
limit %(limit)s
