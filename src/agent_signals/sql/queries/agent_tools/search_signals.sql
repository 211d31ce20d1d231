-- The user's active signals nearest to the query's embedding (pgvector's text form).
select signal_id, content, kind, tier, origin, agent_id, evidence_at, similarity
from mcp.search_signals(%(user_id)s, %(embedding)s, %(limit)s, %(agent_id)s)
