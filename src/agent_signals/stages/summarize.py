"""The summarize stage (prompts/summarize/v1): a user's summary is rebuilt only when their active signal set
changed since their last summary, which the fingerprint (signals.fingerprint) decides. No change, no model
call. One model call each, bounded concurrency; the users whose summary changed are marked for this run's
view refresh.

The model's paragraph is screened like a candidate (screen.screen_text): one that fails (an instruction, a
link, a secret the model was talked into writing) is replaced by a paragraph written from the user's
screened signals themselves ("The user works as ..."), with no model or prompt version recorded. Readers of
context.user_context keep a summary that says only what the signals say, and the user does not cost a
model call every run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from uuid import UUID

import psycopg

from agent_signals.adapters import llm
from agent_signals.config import Settings
from agent_signals.core.actions import Count
from agent_signals.core.prompting.answers import InvalidAnswer, parse_summary_answer
from agent_signals.core.prompting.prompts import SummaryLine, prompt_set, render_summarize
from agent_signals.core.prompting.summary_text import summary_from_signals
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.core.screening.screen import redact, screen_text
from agent_signals.stages.run import batch_summaries
from agent_signals.stages.run.batches import batch_aware
from agent_signals.stages.run.calls import complete
from agent_signals.stages.run.context import RunContext, stage
from agent_signals.store import summaries, upkeep
from agent_signals.store.summaries import Candidate

log = redacting_logger(__name__)

# Renders nothing itself: given the user's lines, returns the raw answer of one model call.
Write = Callable[[list[SummaryLine]], Awaitable[str]]


@stage("summarize")
async def summarize(ctx: RunContext) -> list[str]:
    """Rebuild the summaries that no longer describe their user's signals (bounded concurrency): the dirty
    users' and any other, whoever consumed the dirty marks. The users whose summary changed are marked for
    this run's view refresh. Returns users whose rebuild failed: they stay marked for the next run."""
    if not ctx.settings.run.summaries:
        return []
    written: list[str] = []
    if batch_aware(ctx):  # the answers of earlier summary batches written (whatever the mode is now)
        written = await batch_summaries.collect(ctx, rebuild)
    async with ctx.pool.connection() as conn:
        todo = await summaries.candidates(conn)
    if batch_summaries.batched(ctx):  # the stale ones sent in a batch
        todo = await batch_summaries.submit(ctx, todo)  # left: those with nothing to describe (no call)
    slots = asyncio.Semaphore(ctx.settings.run.concurrency)
    failed: list[str] = []

    async def write(lines: list[SummaryLine]) -> str:
        return (
            await complete(ctx, render_summarize(ctx.settings, lines, ctx.until.date()), "summarize")
        ).text

    async def one(candidate: Candidate) -> None:
        async with slots, ctx.pool.connection() as conn:
            try:
                outcome = await rebuild(conn, ctx.settings, candidate, write, ctx.run_id)
                ctx.stats.actions[outcome] += 1
            except (llm.ModelUnavailable, InvalidAnswer) as exc:
                log.warning(
                    "user %s: summary not rebuilt (%s); kept the previous one", candidate.user_id, exc
                )
                ctx.stats.warnings.append(f"summary of {candidate.user_id} not rebuilt: {str(exc)[:200]}")
                failed.append(candidate.user_id)

    await asyncio.gather(*(one(c) for c in todo))
    changed = sorted({*written, *(c.user_id for c in todo)} - set(failed))
    if changed:  # a summary is part of the views: these users' rows are refreshed too
        async with ctx.pool.connection() as conn:
            await upkeep.mark_dirty(conn, changed)
    return failed


def replacement(lines: list[SummaryLine], language: str) -> str:
    """The summary written from the signals when the model's fails screening: only from the signals that
    pass the screens as they are now (a signal stored before a screen grew may not), and redacted like every
    other text the pipeline keeps. The user's own signals are theirs to word as they like."""
    passed = [
        line
        for line in lines
        if line.bucket == "manual" or screen_text(line.content, language=language) is None
    ]
    return redact(summary_from_signals(passed))


async def rebuild(
    conn: psycopg.AsyncConnection, settings: Settings, candidate: Candidate, write: Write, run_id: UUID
) -> Count:
    """Rebuild one user's summary; returns what happened: `summarized`, `summary_replaced` (the model's
    paragraph failed screening: written from the signals instead) or `summary_dropped` (no active signal).
    Raises ModelUnavailable or InvalidAnswer, leaving the previous summary in place."""
    lines = await summaries.signal_lines(conn, candidate.user_id)
    if not lines:
        await summaries.delete(conn, candidate.user_id)
        return Count.SUMMARY_DROPPED
    summary = parse_summary_answer(await write(lines)).summary
    model, version, outcome = settings.model.name, prompt_set(settings, "summarize").version, Count.SUMMARIZED
    if reason := screen_text(summary, language=settings.screening.signal_language, summary=True):
        log.warning(
            "user %s: the model's summary %s; written from the signals instead", candidate.user_id, reason
        )
        summary, model, version, outcome = (
            replacement(lines, settings.screening.signal_language),
            None,
            None,
            Count.SUMMARY_REPLACED,
        )
    await summaries.write(
        conn,
        candidate,
        summary,
        signal_count=len(lines),
        model=model,
        prompt_version=version,
        run_id=run_id,
    )
    return outcome
