-- A remembered text that passed the screens (held_reason null) or that they held for review.
select signal_id, status
from mcp.remember(%(user_id)s, %(content)s, %(kind)s, %(agent_id)s, %(embedding)s, %(held_reason)s)
