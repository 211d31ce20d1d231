update ops.runs
set users = %(users)s, conversations = %(conversations)s, messages = %(messages)s, actions = %(actions)s,
    llm_calls = %(llm_calls)s, llm_calls_by_purpose = %(llm_calls_by_purpose)s, prompt_tokens = %(prompt_tokens)s,
    cached_prompt_tokens = %(cached_prompt_tokens)s, completion_tokens = %(completion_tokens)s,
    cost_usd = %(cost_usd)s, embedding_calls = %(embedding_calls)s, embedding_tokens = %(embedding_tokens)s,
    by_mode = %(by_mode)s, batches = %(batches)s,
    failures = %(failures)s, warnings = %(warnings)s, refresh_s = %(refresh_s)s,
    status = %(status)s, error = %(error)s,
    finished_at = case when %(status)s = 'running' then null else now() end
where run_id = %(run_id)s
  and status = 'running'  -- a final row is final (an interrupted run's row is written while its shards unwind)
