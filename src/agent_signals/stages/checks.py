"""The checks stage, last of a run: table-level expectations (Great Expectations, adapters/expectations.py)
after the writes; a critical one that fails fails the run (QualityFailed), warnings go to the ledger."""

from __future__ import annotations

import asyncio

from agent_signals.adapters import expectations as quality
from agent_signals.stages.context import RunContext, stage
from agent_signals.store import db


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
