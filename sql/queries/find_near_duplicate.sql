-- The user's signal closest in meaning to a candidate (any origin; active, archived or a tombstone), with
-- its cosine similarity. A user has few signals: the (user_id, status) index narrows, then an exact sort.
select signal_id, origin, status, 1 - (embedding <=> %(embedding)s::vector) as similarity,
       to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where user_id = %(user_id)s and status <> 'merged' and embedding is not null
  and signal_id is distinct from %(exclude)s
order by embedding <=> %(embedding)s::vector, origin = 'manual' desc
limit 1
for update
