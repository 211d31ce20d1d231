"""The summarize stage: the per-user summaries that no longer describe their user's signals rebuilt (one
model call each, bounded concurrency; stages/summaries.py decides which and writes them); the users whose
summary changed are marked for this run's view refresh."""

from __future__ import annotations

import asyncio

from agent_signals.adapters import llm
from agent_signals.core.answers import InvalidAnswer
from agent_signals.core.prompts import SummaryLine, render_summarize
from agent_signals.core.redaction import redacting_logger
from agent_signals.stages import summaries
from agent_signals.stages.calls import complete
from agent_signals.stages.context import RunContext, stage
from agent_signals.store import summaries as stored_summaries
from agent_signals.store import upkeep

log = redacting_logger(__name__)


@stage("summarize")
async def summarize(ctx: RunContext) -> list[str]:
    """Rebuild the summaries that no longer describe their user's signals (bounded concurrency): the dirty
    users' and any other, whoever consumed the dirty marks. The users whose summary changed are marked for
    this run's view refresh. Returns users whose rebuild failed: they stay marked for the next run."""
    if not ctx.settings.summaries:
        return []
    async with ctx.pool.connection() as conn:
        todo = await stored_summaries.candidates(conn, ctx.settings)
    slots = asyncio.Semaphore(ctx.settings.concurrency)
    failed: list[str] = []

    async def write(lines: list[SummaryLine]) -> str:
        return (
            await complete(ctx, render_summarize(ctx.settings, lines, ctx.until.date()), "summarize")
        ).text

    async def one(candidate: stored_summaries.Candidate) -> None:
        async with slots, ctx.pool.connection() as conn:
            try:
                outcome = await summaries.rebuild(conn, ctx.settings, candidate, write, ctx.run_id)
                ctx.stats.actions[outcome] += 1
            except (llm.ModelUnavailable, InvalidAnswer) as exc:
                log.warning(
                    "user %s: summary not rebuilt (%s); kept the previous one", candidate.user_id, exc
                )
                ctx.stats.warnings.append(f"summary of {candidate.user_id} not rebuilt: {str(exc)[:200]}")
                failed.append(candidate.user_id)

    await asyncio.gather(*(one(c) for c in todo))
    changed = sorted({c.user_id for c in todo} - set(failed))
    if changed:  # a summary is part of the views: these users' rows are refreshed too
        async with ctx.pool.connection() as conn:
            await upkeep.mark_dirty(conn, ctx.settings, changed)
    return failed
