-- The run's row: its figures, and its calls, tokens and cost as recorded call by call (ops.run_calls).
update ops.runs r
set users = %(users)s, conversations = %(conversations)s, messages = %(messages)s, actions = %(actions)s,
    llm_calls = f.llm_calls, llm_calls_by_purpose = f.llm_calls_by_purpose, prompt_tokens = f.prompt_tokens,
    cached_prompt_tokens = f.cached_prompt_tokens, completion_tokens = f.completion_tokens,
    cost_usd = f.cost_usd, embedding_calls = f.embedding_calls, embedding_tokens = f.embedding_tokens,
    by_mode = f.by_mode, batches = %(batches)s,
    failures = %(failures)s, warnings = %(warnings)s, refresh_s = %(refresh_s)s,
    status = %(status)s, error = %(error)s,
    finished_at = case when %(status)s = 'running' then null else now() end
from ops.run_call_figures(%(run_id)s) f
where r.run_id = %(run_id)s
  and r.status = 'running'  -- a final row is final (an interrupted run's row is written while its shards unwind)
