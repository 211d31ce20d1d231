"""Reading the source contract (source.conversations, source.messages): what is new, for whom."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import psycopg
from psycopg.rows import dict_row

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.batching import KnownSignal, SourceMessage, UserBatch
from agent_signals.store.sqlfiles import query

KNOWN_SIGNALS_SHOWN = 40  # inferred signals shown to the model per user, beside all manual ones


@dataclass(frozen=True)
class Window:
    """Which messages a run reads. A scheduled run: everything new up to `until`. A backfill: the
    messages created in [since, until), watermarks ignored (apply is idempotent), optionally some users."""

    until: datetime
    since: datetime | None = None
    users: tuple[str, ...] | None = None
    ignore_watermarks: bool = False

    @property
    def params(self) -> dict:
        # `until` is inclusive for scheduled runs (the cut-off); a backfill slice excludes its end
        until = self.until - timedelta(microseconds=1) if self.since is not None else self.until
        users = list(self.users) if self.users else None
        return {
            "since": self.since,
            "until": until,
            "users": users,
            "ignore_watermarks": self.ignore_watermarks,
        }


@dataclass(frozen=True)
class Pending:
    user_id: str
    messages: int
    waiting: bool = False  # the user's last attempt failed and its backoff has not run out (not read now)


async def pending_users(conn: psycopg.AsyncConnection, settings: Settings, window: Window) -> list[Pending]:
    """Users with flagged user-role messages in the window (ids and counts: messages are read per shard),
    those waiting out a failure's backoff included (Pending.waiting)."""
    cur = await conn.execute(query(settings, "scan_pending_users"), window.params)
    return [
        Pending(user_id, messages, waiting)
        for user_id, messages, _conversations, waiting in await cur.fetchall()
    ]


async def load_batches(
    conn: psycopg.AsyncConnection, settings: Settings, user_ids: list[str], window: Window
) -> list[UserBatch]:
    """One batch per user of the shard: their user-role messages in the window (cleaned: text.clean) and
    their active signals."""
    batches = {user_id: UserBatch(user_id) for user_id in user_ids}
    cur = conn.cursor(row_factory=dict_row)
    params = {"user_ids": user_ids, **window.params, **decay.query_params(settings, window.until)}
    await cur.execute(query(settings, "load_pending_messages"), params)
    async for row in cur:
        batches[row["user_id"]].messages.append(
            SourceMessage.read(
                row["conversation_id"], row["message_id"], row["content"], row["created_at"], row["stale"]
            )
        )
    for user_id, known in (await known_signals(conn, settings, user_ids)).items():
        batches[user_id].known = known
    return [b for b in batches.values() if b.messages]


async def known_signals(
    conn: psycopg.AsyncConnection, settings: Settings, user_ids: list[str]
) -> dict[str, list[KnownSignal]]:
    """The active signals shown to the model, by user: all of the user's own, then at most
    KNOWN_SIGNALS_SHOWN inferred ones (core, then the most recently seen)."""
    known: dict[str, list[KnownSignal]] = {}
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(
        query(settings, "load_known_signals"), {"user_ids": user_ids, "limit": KNOWN_SIGNALS_SHOWN}
    )
    async for row in cur:
        known.setdefault(row["user_id"], []).append(
            KnownSignal(
                row["signal_id"], row["content"], row["normalized"], row["tier"], row["kind"], row["origin"]
            )
        )
    return known
