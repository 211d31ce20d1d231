-- Calls of a run counted since the last write (one row per purpose and mode), added to what ops.run_calls
-- holds for it. Rows in key order, so that parts of one run writing at once never deadlock.
insert into ops.run_calls as c (run_id, purpose, mode, calls, prompt_tokens, cached_prompt_tokens,
                                completion_tokens, cost_usd)
select %(run_id)s, purpose, mode, calls, prompt_tokens, cached_prompt_tokens, completion_tokens, cost_usd
from unnest(%(purposes)s::text[], %(modes)s::text[], %(calls)s::integer[], %(prompt_tokens)s::bigint[],
            %(cached_prompt_tokens)s::bigint[], %(completion_tokens)s::bigint[], %(cost_usd)s::float8[])
     as t (purpose, mode, calls, prompt_tokens, cached_prompt_tokens, completion_tokens, cost_usd)
order by purpose, mode
on conflict (run_id, purpose, mode) do update
    set calls = c.calls + excluded.calls,
        prompt_tokens = c.prompt_tokens + excluded.prompt_tokens,
        cached_prompt_tokens = c.cached_prompt_tokens + excluded.cached_prompt_tokens,
        completion_tokens = c.completion_tokens + excluded.completion_tokens,
        cost_usd = c.cost_usd + excluded.cost_usd
