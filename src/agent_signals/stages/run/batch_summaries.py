"""Summaries as provider batch requests (AGENT_SIGNALS_BATCH_MODE=provider with AGENT_SIGNALS_BATCH_FOLLOWUPS=
batch): the summarize stage sends the prompts of the users whose summary is stale in one batch, and a later
run writes the answers through summarize.rebuild, screened as a direct answer is. Each request keeps the
fingerprint of the signal set it was asked about: an answer about a set that changed since is not written
(summaries.write), and the user is asked again."""

from __future__ import annotations

from agent_signals.adapters import llm, provider_batches
from agent_signals.core.prompting.answers import InvalidAnswer
from agent_signals.core.prompting.prompts import SummaryLine, prompt_set, render_summarize
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.run.batches import asked_with, batching, results, send, warn
from agent_signals.stages.run.context import RunContext
from agent_signals.store import summaries
from agent_signals.store.ledger import batch_ledger
from agent_signals.store.summaries import Candidate

log = redacting_logger(__name__)
PURPOSE = "summarize"


def batched(ctx: RunContext) -> bool:
    """Whether this run's summary calls go in a provider batch."""
    return batching(ctx) and ctx.settings.batch.followups == "batch"


async def collect(ctx: RunContext, rebuild) -> list[str]:
    """Write the answers of the summary batches that ended; returns the users whose summary was written.
    `rebuild` is summarize.rebuild (given the answer as its model call)."""
    async with ctx.pool.connection() as conn:
        waiting = await batch_ledger.waiting(conn, None, PURPOSE)
    written = []
    read: dict = {}
    gone: set = set()  # batches whose files the provider no longer has: their requests are never answered
    for user_id, (request, *_rest) in waiting.items():
        if request.out:
            continue
        if request.batch_key not in read:
            try:
                read[request.batch_key] = await results(ctx, request)
            except llm.ModelMisconfigured as exc:  # as for extraction answers (batches.collect)
                if exc.kind != "not_found":
                    ctx.halt(exc)
                    return written
                gone.add(request.batch_key)
                read[request.batch_key] = {}
            except llm.ModelUnavailable as exc:
                warn(
                    ctx,
                    f"batch {request.batch_key}: its summaries could not be read ({exc}); read again next run",
                )
                read[request.batch_key] = None
        answers = read[request.batch_key]
        if answers is None:
            continue
        result = answers.get(request.custom_id)
        status = "applied"
        if result is None or result.completion is None:
            status = "unanswered" if result is None else "failed"
            ctx.stats.batches[f"summary_{status}"] += 1
        else:
            completion = result.completion
            ctx.stats.count_call(PURPOSE, "batch", completion.prompt_tokens, completion.cached_prompt_tokens,
                                 completion.completion_tokens, completion.cost_usd)  # fmt: skip

            async def answer(_lines: list[SummaryLine], text: str = completion.text) -> str:
                return text

            async with ctx.pool.connection() as conn:
                try:
                    asked = asked_with(ctx.settings, request.model)
                    outcome = await rebuild(conn, asked, Candidate(user_id, request.fingerprint or ""), answer,
                                            ctx.run_id)  # fmt: skip
                    ctx.stats.actions[outcome] += 1
                    written.append(user_id)
                except InvalidAnswer as exc:
                    warn(ctx, f"summary of {user_id} not rebuilt: {str(exc)[:200]}")
                    status = "failed"
        async with ctx.pool.connection() as conn:
            await batch_ledger.close_requests(conn, [(request.batch_key, user_id)], status, ctx.run_id,
                                        "files_gone" if request.batch_key in gone else None)  # fmt: skip
    return written


async def submit(ctx: RunContext, todo: list[Candidate]) -> list[Candidate]:
    """Send the summary prompts of these users in one batch (those with a summary request still out are
    left alone); returns those with no active signal left (no call: their summary is dropped now)."""
    async with ctx.pool.connection() as conn:
        out = set(await batch_ledger.waiting(conn, [c.user_id for c in todo], PURPOSE))
        requests, prompts, empty = [], [], []
        for candidate in todo:
            if candidate.user_id in out:
                continue
            lines = await summaries.signal_lines(conn, candidate.user_id)
            if not lines:  # nothing to describe: no call (rebuild drops the summary)
                empty.append(candidate)
                continue
            custom_id = f"r{len(requests)}"
            requests.append(batch_ledger.NewRequest(custom_id, candidate.user_id, 0, 1, (), (),
                                              ctx.settings.model.max_answer_tokens, candidate.fingerprint))  # fmt: skip
            prompts.append(provider_batches.BatchRequest(custom_id, render_summarize(ctx.settings, lines, ctx.until.date()),
                                                 PURPOSE))  # fmt: skip
    if requests:
        version = prompt_set(ctx.settings, PURPOSE).version
        await send(ctx, requests, prompts, purpose=PURPOSE, prompt_version=version)
    return empty
