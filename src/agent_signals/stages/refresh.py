"""The refresh stage: the context views (dbt, adapters/dbt_views.py) rebuilt for the users changed since the last
refresh, incremental by user; a user whose rows fail is recorded (stage `refresh`, not counted against
them) and stays dirty while the others are refreshed; a failed build fails the run and leaves the previous
views and the dirty marks in place."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from agent_signals.stages.run.context import RunContext, stage
from agent_signals.stages.run.failures import fail
from agent_signals.store import upkeep


@stage("refresh")
async def refresh_views(ctx: RunContext, keep_dirty: list[str]) -> None:
    """Refresh the context views for the users changed since the last refresh (dbt, incremental by user).
    A failed build raises (the run fails) and leaves the previous views and the dirty marks in place; the
    users whose own rows failed keep their previous rows and their marks, and the next run retries them."""
    from agent_signals.adapters import dbt_views  # dbt loads only when a run gets this far

    settings = ctx.settings
    started = datetime.now(UTC)
    async with ctx.pool.connection() as conn:
        await upkeep.take_dirty_users(conn, settings, ctx.run_id)
    result = await asyncio.to_thread(dbt_views.refresh, settings, ctx.run_id)
    ctx.stats.refresh_s = result.seconds
    for user_id, reason in result.failed.items():  # the database's or the pipeline's, not the user's
        await fail(ctx, user_id, "refresh", "ViewRefreshFailed", reason)
    async with ctx.pool.connection() as conn:  # those whose summary failed stay dirty: the next run retries
        keep = [*keep_dirty, *result.failed]
        await upkeep.clear_dirty_users(conn, ctx.run_id, started, keep=keep)
