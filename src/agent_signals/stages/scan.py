"""The scan stage: the users with flagged user messages in the run's window (those waiting out a failure's
backoff left for later), the backfill's slice ledger (finished slices are not redone), and the embedding of
signals added by hand that have none yet."""

from __future__ import annotations

from datetime import datetime

from agent_signals.stages import embed
from agent_signals.stages.run.calls import record_calls
from agent_signals.stages.run.context import RunContext, stage
from agent_signals.store.ledger import runs
from agent_signals.store.source import Pending, pending_users


@stage("scan")
async def scan(ctx: RunContext) -> list[Pending]:
    """The users with flagged user messages in the run's window (and how many messages each); those waiting
    out a failure's backoff are left for a later run (skipped_users["backoff"])."""
    async with ctx.pool.connection() as conn:
        pending = await pending_users(conn, ctx.window)
    waiting = sum(p.waiting for p in pending)
    if waiting:
        ctx.stats.skipped_users["backoff"] += waiting
    return [p for p in pending if not p.waiting]


async def finished_slices(ctx: RunContext, backfill_key: str) -> set[datetime]:
    """The slices of this backfill that an earlier run finished cleanly: not redone."""
    async with ctx.pool.connection() as conn:
        return await runs.finished_slices(conn, backfill_key)


async def record_slice(
    ctx: RunContext, backfill_key: str, start: datetime, end: datetime, pending: list[Pending]
) -> None:
    """A slice finished with no failure and no skipped user: the next run of this backfill skips it."""
    async with ctx.pool.connection() as conn:
        await runs.record_slice(
            conn, backfill_key=backfill_key, start=start, end=end, run_id=ctx.run_id,
            users=len(pending), messages=sum(p.messages for p in pending),
        )  # fmt: skip


@stage("embed_missing")
async def embed_missing(ctx: RunContext) -> int:
    """Embed signals that have none yet (added by hand); returns how many."""
    async with ctx.pool.connection() as conn:
        usage = await embed.embed_missing(conn, ctx.settings)
    ctx.stats.count_embedding(usage.calls, usage.tokens, usage.cost_usd)
    await record_calls(ctx)
    return usage.signals
