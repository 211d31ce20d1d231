"""The stages after the writes, as plain functions the flow calls in order: retraction of signals whose
source was deleted, decay scores, summaries (changed users only), views (dbt, changed users only), table
expectations (Great Expectations)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from psycopg.types.json import Jsonb

from agent_signals.adapters import expectations as quality
from agent_signals.adapters import llm
from agent_signals.core.answers import InvalidAnswer
from agent_signals.core.prompts import SummaryLine, render_summarize
from agent_signals.core.redaction import redacting_logger
from agent_signals.stages import summaries
from agent_signals.stages.calls import complete
from agent_signals.stages.context import RunContext, stage
from agent_signals.store import db
from agent_signals.store.sqlfiles import query

log = redacting_logger(__name__)


@stage("retract")
async def retract_orphans(ctx: RunContext) -> int:
    """Signals whose evidence came only from conversations deleted from the source are retracted; the
    others lose that evidence and are recounted. Returns how many were retracted."""
    settings = ctx.settings
    retracted = 0
    async with ctx.pool.connection() as conn, conn.transaction():
        cur = await conn.execute(query(settings, "delete_orphan_evidence"))
        affected = sorted({row[0] for row in await cur.fetchall()})
        for signal_id in affected:
            cur = await conn.execute(query(settings, "retract_signal"), {"signal_id": signal_id})
            row = await cur.fetchone()
            if row is None:
                await conn.execute(query(settings, "sync_mentions"), {"signal_id": signal_id})
                continue
            retracted += 1
            await conn.execute(
                query(settings, "insert_event"),
                {"signal_id": signal_id, "user_id": row[0], "run_id": ctx.run_id, "action": "retract",
                 "actor": "pipeline", "prompt_version": None, "model": None, "before": None,
                 "after": Jsonb(row[1])},
            )  # fmt: skip
    if retracted:
        ctx.stats.actions["retracted"] += retracted
    return retracted


@stage("decay")
async def decay(ctx: RunContext) -> int:
    """Recompute decay scores of all active inferred signals (one statement) and archive contextual ones
    under the threshold. Returns how many were archived."""
    settings = ctx.settings
    params = {**settings.decay_params(ctx.until), "run_id": ctx.run_id}
    async with ctx.pool.connection() as conn, conn.transaction():
        archived = (await (await conn.execute(query(settings, "archive_decayed"), params)).fetchone())[0]
        await conn.execute(query(settings, "update_decay"), params)
    if archived:
        ctx.stats.actions["archived"] += archived
    return archived


@stage("summarize")
async def summarize(ctx: RunContext) -> list[str]:
    """Rebuild the summaries that no longer describe their user's signals (bounded concurrency): the dirty
    users' and any other, whoever consumed the dirty marks. The users whose summary changed are marked for
    this run's view refresh. Returns users whose rebuild failed: they stay marked for the next run."""
    if not ctx.settings.summaries:
        return []
    async with ctx.pool.connection() as conn:
        todo = await summaries.candidates(conn, ctx.settings)
    slots = asyncio.Semaphore(ctx.settings.concurrency)
    failed: list[str] = []

    async def write(lines: list[SummaryLine]) -> str:
        return (
            await complete(ctx, render_summarize(ctx.settings, lines, ctx.until.date()), "summarize")
        ).text

    async def one(candidate: summaries.Candidate) -> None:
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
            await conn.execute(query(ctx.settings, "mark_dirty"), {"user_ids": changed})
    return failed


@stage("refresh")
async def refresh_views(ctx: RunContext, keep_dirty: list[str]) -> None:
    """Refresh the context views for the users changed since the last refresh (dbt, incremental by user).
    A failed build raises (the run fails) and leaves the previous views and the dirty marks in place."""
    from agent_signals.adapters import dbt as views  # dbt loads only when a run gets this far

    settings = ctx.settings
    started = datetime.now(UTC)
    async with ctx.pool.connection() as conn:
        await conn.execute(query(settings, "take_dirty_users"), {"run_id": ctx.run_id})
    result = await asyncio.to_thread(views.refresh, settings, ctx.run_id)
    ctx.stats.refresh_s = result.seconds
    async with ctx.pool.connection() as conn, conn.transaction():
        await conn.execute(
            query(settings, "clear_dirty_users"), {"run_id": ctx.run_id, "refresh_started": started}
        )
        if keep_dirty:  # their summary failed: the next run tries again
            await conn.execute(query(settings, "mark_dirty"), {"user_ids": keep_dirty})


@stage("checks")
async def check_tables(ctx: RunContext) -> None:
    """Table-level expectations after the writes: critical ones fail the run, warnings go to the ledger."""
    report = await asyncio.to_thread(
        quality.check_tables, ctx.settings, db.database_url(ctx.settings), ctx.run_id
    )
    ctx.stats.warnings.extend(report.warnings)
    if report.failed_critical:
        raise QualityFailed("; ".join(report.failed_critical))


class QualityFailed(Exception):
    """A critical table-level expectation failed after the writes."""
