-- One user's block for one agent (the profile and that agent's signals), as an agent reads it.
select context_markdown, summary, refreshed_at
from context.agent_context
where user_id = %(user_id)s and agent_id = %(agent_id)s
