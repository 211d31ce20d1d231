"""Reading the source contract (source.conversations, source.messages): what is new, for whom."""

from __future__ import annotations

from datetime import datetime

import psycopg
from psycopg.rows import dict_row

from agent_signals.config import Settings
from agent_signals.extract import KnownSignal, SourceMessage, UserBatch
from agent_signals.sqlfiles import query

KNOWN_SIGNALS_SHOWN = 40  # inferred signals shown to the model per user, beside all manual ones


async def pending_users(conn: psycopg.AsyncConnection, settings: Settings, until: datetime) -> list[str]:
    """Ids of users with new flagged user-role messages (ids only: their messages are read per shard)."""
    cur = await conn.execute(query(settings, "scan_pending_users"), {"until": until})
    return [row[0] for row in await cur.fetchall()]


async def load_batches(
    conn: psycopg.AsyncConnection, settings: Settings, user_ids: list[str], until: datetime
) -> list[UserBatch]:
    """One batch per user of the shard: their new user-role messages and their active signals."""
    batches = {user_id: UserBatch(user_id) for user_id in user_ids}
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(query(settings, "load_pending_messages"), {"user_ids": user_ids, "until": until})
    async for row in cur:
        batches[row["user_id"]].messages.append(
            SourceMessage(row["conversation_id"], row["message_id"], row["content"], row["created_at"])
        )
    await cur.execute(
        query(settings, "load_known_signals"), {"user_ids": user_ids, "limit": KNOWN_SIGNALS_SHOWN}
    )
    async for row in cur:
        batches[row["user_id"]].known.append(
            KnownSignal(
                row["signal_id"], row["content"], row["normalized"], row["tier"], row["kind"], row["origin"]
            )
        )
    return [b for b in batches.values() if b.messages]
