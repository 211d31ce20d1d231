"""The checks stage, last of a run: table-level expectations (Great Expectations, adapters/expectations.py)
after the writes; a critical one that fails fails the run (QualityFailed), warnings go to the ledger.

The expectations read only the users this run's view refresh took (whoever's signals changed since the last
refresh), so their cost follows those users, not the table. A critical failure marks those users dirty
again: the next run reads them again and fails again until their rows are put right, as the check of the
whole table did before."""

from __future__ import annotations

import asyncio

from agent_signals.adapters import expectations
from agent_signals.stages.run.context import RunContext, stage
from agent_signals.store import database, upkeep


@stage("checks")
async def check_tables(ctx: RunContext) -> None:
    """Table-level expectations over the run's users after the writes: critical ones fail the run (their
    users stay marked for the next run), warnings go to the ledger."""
    report = await asyncio.to_thread(
        expectations.check_tables, ctx.settings, database.database_url(ctx.settings), ctx.run_id
    )
    ctx.stats.warnings.extend(report.warnings)
    if report.failed_critical:
        async with ctx.pool.connection() as conn:
            await upkeep.mark_run_users_dirty(conn, ctx.run_id)
        raise QualityFailed("; ".join(report.failed_critical))


class QualityFailed(Exception):
    """A critical table-level expectation failed after the writes."""
