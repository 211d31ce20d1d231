select context_markdown, summary, refreshed_at
from context.user_context
where user_id = %(user_id)s
