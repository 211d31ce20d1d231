"""The decay stage: every active inferred signal's decay score recomputed at the run's time (one statement,
the formula of core/decay.py), and the contextual ones under the archive threshold archived (kept and
queryable, out of the context views)."""

from __future__ import annotations

from agent_signals.core import decay as formula
from agent_signals.stages.context import RunContext, stage
from agent_signals.store.sqlfiles import query


@stage("decay")
async def decay(ctx: RunContext) -> int:
    """Recompute decay scores of all active inferred signals (one statement) and archive contextual ones
    under the threshold. Returns how many were archived."""
    settings = ctx.settings
    params = {**formula.query_params(settings, ctx.until), "run_id": ctx.run_id}
    async with ctx.pool.connection() as conn, conn.transaction():
        archived = (await (await conn.execute(query(settings, "archive_decayed"), params)).fetchone())[0]
        await conn.execute(query(settings, "update_decay"), params)
    if archived:
        ctx.stats.actions["archived"] += archived
    return archived
