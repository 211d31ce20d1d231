"""The statements of the stages after the writes: evidence of conversations deleted from the source removed
and the signals left without any retracted, decay scores and archiving (parameters from core/decay.py), the
dirty-user marks that drive summaries and the views' refresh, and whether a run has any work at all.

Decay costs what is due and who is touched, not the table: archiving reads the due signals from an index
(signals.due_for_archive, sql/functions/30_decay.sql), and scores are rewritten only for the users whose
summary and rows of the views are rebuilt (the dirty users at the decay stage, the users a refresh takes)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from agent_signals.config import Settings
from agent_signals.core import decay as formula
from agent_signals.store.sqlfiles import query


async def retract_orphans(conn: psycopg.AsyncConnection, run_id: UUID) -> int:
    """In one transaction: evidence of deleted conversations removed; a signal left with none is retracted
    (an event of the run), the others recounted. Returns how many were retracted."""
    retracted = 0
    async with conn.transaction():
        cur = await conn.execute(query("upkeep/delete_orphan_evidence"))
        affected = sorted({row[0] for row in await cur.fetchall()})
        for signal_id in affected:
            cur = await conn.execute(query("upkeep/retract_signal"), {"signal_id": signal_id})
            row = await cur.fetchone()
            if row is None:
                await conn.execute(query("shared/sync_mentions"), {"signal_ids": [signal_id]})
                continue
            retracted += 1
            await conn.execute(
                query("shared/insert_event"),
                {"signal_id": signal_id, "user_id": row[0], "run_id": run_id, "action": "retract",
                 "actor": "pipeline", "prompt_version": None, "model": None, "before": None,
                 "after": Jsonb(row[1])},
            )  # fmt: skip
    return retracted


async def decay(conn: psycopg.AsyncConnection, params: dict[str, object]) -> tuple[int, int]:
    """In one transaction: the signals whose validity has ended by the run's time ended, contextual signals
    under the threshold archived (an event each; their users are marked dirty by the trigger), then the
    scores of the dirty users' active inferred signals rewritten. `params`: core/decay.py's query_params and
    the run_id. Returns how many were (ended, archived)."""
    async with conn.transaction():
        ended = (await (await conn.execute(query("upkeep/end_due"), params)).fetchone())[0]
        archived = (await (await conn.execute(query("upkeep/archive_decayed"), params)).fetchone())[0]
        await conn.execute(query("upkeep/update_decay"), params)
    return ended, archived


async def mark_dirty(conn: psycopg.AsyncConnection, user_ids: list[str]) -> None:
    """These users' rows of the views are refreshed by the next refresh."""
    await conn.execute(query("upkeep/mark_dirty"), {"user_ids": user_ids})


async def mark_run_users_dirty(conn: psycopg.AsyncConnection, run_id: UUID) -> None:
    """The users `run_id`'s refresh took marked dirty again (its table expectations failed on them): the
    next run checks them again."""
    await conn.execute(query("upkeep/mark_dirty_run"), {"run_id": run_id})


async def take_dirty_users(conn: psycopg.AsyncConnection, settings: Settings, run_id: UUID) -> None:
    """The users marked dirty now are the ones this run's refresh builds; their decay scores are the run's
    (a user marked after the decay stage is scored here), so that the views order them as of this run."""
    params = {"decay": formula.Decay.of(settings).sql_value(), "run_id": run_id}  # at: ops.runs.window_end
    async with conn.transaction():
        await conn.execute(query("upkeep/take_dirty_users"), {"run_id": run_id})
        await conn.execute(query("upkeep/rescore_taken_users"), params)


async def clear_dirty_users(
    conn: psycopg.AsyncConnection,
    run_id: UUID,
    refresh_started: datetime,
    keep: list[str],
) -> None:
    """After a refresh: the marks it built cleared (those set since it started stay), in one transaction
    with the users to `keep` marked again (their summary failed: the next run tries again)."""
    async with conn.transaction():
        await conn.execute(
            query("upkeep/clear_dirty_users"), {"run_id": run_id, "refresh_started": refresh_started}
        )
        if keep:
            await mark_dirty(conn, keep)


def pending_work(conn: psycopg.Connection, params: dict[str, object]) -> list[str]:
    """The kinds of work a run would have to do (sql/queries/upkeep/pending_work.sql; empty: none). `params`:
    core/decay.py's query_params and whether summaries are on."""
    return [work for work, due in conn.execute(query("upkeep/pending_work"), params) if due]
