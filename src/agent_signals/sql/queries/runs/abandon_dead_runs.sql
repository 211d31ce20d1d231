-- Runs still marked running whose process is gone (their session lock is free) are marked abandoned, with
-- the calls they made (recorded as each answer came back: ops.run_calls); their unfinished users are
-- simply still pending, so the next run finishes them.
with dead as (
    select run_id
    from ops.runs
    where status = 'running'
      and pg_try_advisory_xact_lock(hashtextextended('agent_signals.run:' || run_id::text, 0))
)
update ops.runs r
set status = 'abandoned', finished_at = now(), error = 'the process running it died',
    llm_calls = f.llm_calls, llm_calls_by_purpose = f.llm_calls_by_purpose, prompt_tokens = f.prompt_tokens,
    cached_prompt_tokens = f.cached_prompt_tokens, completion_tokens = f.completion_tokens,
    cost_usd = f.cost_usd, embedding_calls = f.embedding_calls, embedding_tokens = f.embedding_tokens,
    by_mode = f.by_mode
from dead cross join lateral ops.run_call_figures(dead.run_id) f
where r.run_id = dead.run_id
returning r.run_id
