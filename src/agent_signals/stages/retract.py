"""The retract stage, first after the writes: signals whose evidence came only from conversations deleted
from the source are retracted (an event each); the others lose that evidence and are recounted."""

from __future__ import annotations

from agent_signals.core.actions import Count
from agent_signals.stages.run.context import RunContext, stage
from agent_signals.store import upkeep


@stage("retract")
async def retract_orphans(ctx: RunContext) -> int:
    """Signals whose evidence came only from conversations deleted from the source are retracted; the
    others lose that evidence and are recounted. Returns how many were retracted."""
    async with ctx.pool.connection() as conn:
        retracted = await upkeep.retract_orphans(conn, ctx.run_id)
    if retracted:
        ctx.stats.actions[Count.RETRACTED] += retracted
    return retracted
