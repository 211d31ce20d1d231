"""The decay stage: every active inferred signal's decay score recomputed at the run's time (one statement,
the formula of core/decay.py), and the contextual ones under the archive threshold archived (kept and
queryable, out of the context views)."""

from __future__ import annotations

from agent_signals.core import decay as formula
from agent_signals.stages.context import RunContext, stage
from agent_signals.store import upkeep


@stage("decay")
async def decay(ctx: RunContext) -> int:
    """Recompute decay scores of all active inferred signals (one statement) and archive contextual ones
    under the threshold. Returns how many were archived."""
    params = {**formula.query_params(ctx.settings, ctx.until), "run_id": ctx.run_id}
    async with ctx.pool.connection() as conn:
        archived = await upkeep.decay(conn, ctx.settings, params)
    if archived:
        ctx.stats.actions["archived"] += archived
    return archived
