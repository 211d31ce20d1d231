"""The run's model calls: each one paced by the run's rate limits (and Prefect's, when configured), counted
in its figures (calls, tokens, cost by purpose) and recorded in ops.run_calls as it comes back, the run's
first call made alone so that a misconfigured model costs one request."""

from __future__ import annotations

from agent_signals.adapters import llm, pacing
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.run.context import RunContext, cut_off
from agent_signals.store.ledger import run_calls

log = redacting_logger(__name__)


async def complete(ctx: RunContext, prompt: list[dict], purpose: str) -> llm.Completion:
    """One model call of this run, paced by the run's rate limits and counted in its figures."""
    await ctx.pacing.limiter.acquire(
        pacing.estimate_tokens(prompt) + ctx.settings.model.max_answer_tokens // 4
    )
    if ctx.settings.model.prefect_rate_limit:  # one pace for every process and worker of the deployment
        from prefect.concurrency.asyncio import rate_limit

        await rate_limit(ctx.settings.model.prefect_rate_limit, occupy=1)
    try:
        completion = await _first_call_alone(ctx, prompt, purpose)
    except llm.TruncatedAnswer as exc:  # answers cut at max_tokens cost tokens too
        await _count_call(ctx, purpose, exc.spent)
        raise
    await _count_call(ctx, purpose, completion)
    return completion


async def _count_call(ctx: RunContext, purpose: str, completion: llm.Completion) -> None:
    ctx.stats.count_call(
        purpose, "direct", completion.prompt_tokens, completion.cached_prompt_tokens,
        completion.completion_tokens, completion.cost_usd,
    )  # fmt: skip
    await record_calls(ctx)


async def record_calls(ctx: RunContext) -> None:
    """Add the calls counted since the last write to ops.run_calls (run_calls.record), so that the run's row
    counts them whatever ends the run. One write at a time in a context (a shard's): the calls that come
    back during it go in the next. A write that fails leaves them counted for the next one (a lost
    connection stops the run: the final row writes them on a new connection); it never fails the call."""
    if ctx.dry_run or ctx.stop.database is not None or not ctx.stats.unrecorded:
        return
    async with ctx.recording:
        if not ctx.stats.unrecorded:
            return  # written by the write before this one
        try:
            await run_calls.record(ctx.ledger, ctx.run_id, ctx.stats.unrecorded)
        except Exception as exc:
            if not await cut_off(ctx, exc):
                log.exception(
                    "could not record the model calls of run %s (the next write retries)", ctx.run_id
                )


async def _first_call_alone(ctx: RunContext, prompt: list[dict], family: str) -> llm.Completion:
    """The run's first model call goes alone (the others wait for its outcome): a misconfigured model costs
    one request, not one per call in flight."""
    stop = ctx.stop
    if stop.model_answered:
        return await llm.complete(prompt, ctx.settings, family=family)
    async with stop.first_call:
        if stop.error is not None:
            raise stop.error
        if stop.model_answered:
            return await llm.complete(prompt, ctx.settings, family=family)
        try:
            completion = await llm.complete(prompt, ctx.settings, family=family)
        except llm.ModelMisconfigured:
            raise
        except BaseException:
            stop.model_answered = True
            raise
        stop.model_answered = True
        return completion
