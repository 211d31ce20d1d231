-- Semantic search over active signals (HNSW cosine index), optionally for one user.
select s.user_id, s.signal_id, s.origin, s.tier, s.kind, s.content,
       1 - (s.embedding <=> %(embedding)s::vector) as similarity
from signals.signals s
where s.status = 'active' and s.embedding is not null
  and (%(user_id)s::text is null or s.user_id = %(user_id)s)
order by s.embedding <=> %(embedding)s::vector
limit %(limit)s
