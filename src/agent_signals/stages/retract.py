"""The retract stage, first after the writes: signals whose evidence came only from conversations deleted
from the source are retracted (an event each); the others lose that evidence and are recounted."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from agent_signals.stages.context import RunContext, stage
from agent_signals.store.sqlfiles import query


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
