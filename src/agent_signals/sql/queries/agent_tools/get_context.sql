-- The block an agent pastes (sql/functions/97_mcp.sql: the view's row, or the as-of rendering).
select context_markdown, summary, refreshed_at, rendered
from mcp.get_context(%(user_id)s, %(agent_id)s, %(as_of)s)
