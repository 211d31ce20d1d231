"""Reading the source contract (source.conversations, source.messages): what is new, for whom."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar
from uuid import UUID

import polars as pl
import psycopg

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.prompting.extract_calls import KnownSignal, SourceMessage, UserMessages
from agent_signals.store.sqlfiles import query

T = TypeVar("T")

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


async def pending_users(conn: psycopg.AsyncConnection, window: Window) -> list[Pending]:
    """Users with flagged user-role messages in the window (ids and counts: messages are read per shard),
    those waiting out a failure's backoff included (Pending.waiting)."""
    cur = await conn.execute(query("shared/scan_pending_users"), window.params)
    return [
        Pending(user_id, messages, waiting)
        for user_id, messages, _conversations, waiting in await cur.fetchall()
    ]


@dataclass(frozen=True)
class ShardFrames:
    """A shard's input as polars frames, each read with one query for all its users: `messages` (the
    user-role messages in the window, as stored) and `known` (the active signals shown to the model)."""

    messages: pl.DataFrame
    known: pl.DataFrame

    def user_messages(self) -> list[UserMessages]:
        """One UserMessages per user with messages, in user order: the frames' rows of that user, the messages
        cleaned (text.clean) as the prompt, the screens and the stored evidence read them."""
        known = _by_user(self.known, _known_signal)
        return [
            UserMessages(
                user_id, [_message(row) for row in rows.iter_rows(named=True)], known.get(user_id, [])
            )
            for (user_id,), rows in self.messages.partition_by(
                "user_id", as_dict=True, maintain_order=True
            ).items()
        ]


MESSAGES = {"user_id": pl.String, "conversation_id": pl.String, "message_id": pl.String, "content": pl.String,
            "created_at": pl.Datetime("us", "UTC"), "stale": pl.Boolean,
            "agent_id": pl.String}  # fmt: skip
KNOWN = {"user_id": pl.String, "signal_id": pl.String, "content": pl.String, "normalized": pl.String,
         "tier": pl.String, "kind": pl.String, "origin": pl.String, "agent_id": pl.String,
         "valid_to": pl.Datetime("us", "UTC")}  # fmt: skip


async def load_shard(
    conn: psycopg.AsyncConnection, settings: Settings, user_ids: list[str], window: Window
) -> ShardFrames:
    """The shard's frames: its users' messages in the window and their known signals, one query each."""
    params = {"user_ids": user_ids, **window.params, **decay.query_params(settings, window.until)}
    cur = await conn.execute(query("source/load_pending_messages"), params)
    messages = pl.DataFrame(await cur.fetchall(), schema=MESSAGES, orient="row")
    return ShardFrames(messages, await known_frame(conn, user_ids))


async def known_frame(conn: psycopg.AsyncConnection, user_ids: list[str]) -> pl.DataFrame:
    """The active signals shown to the model (all of each user's own, then at most KNOWN_SIGNALS_SHOWN
    inferred ones: core, then the most recently seen), a row each, in the order shown."""
    cur = await conn.execute(
        query("source/load_known_signals"), {"user_ids": user_ids, "limit": KNOWN_SIGNALS_SHOWN}
    )
    rows = [(u, str(signal_id), *rest) for u, signal_id, *rest in await cur.fetchall()]
    return pl.DataFrame(rows, schema=KNOWN, orient="row")


async def known_signals(conn: psycopg.AsyncConnection, user_ids: list[str]) -> dict[str, list[KnownSignal]]:
    """known_frame by user."""
    return _by_user(await known_frame(conn, user_ids), _known_signal)


def _by_user(frame: pl.DataFrame, make: Callable[[dict], T]) -> dict[str, list[T]]:
    return {
        user_id: [make(row) for row in rows.iter_rows(named=True)]
        for (user_id,), rows in frame.partition_by("user_id", as_dict=True, maintain_order=True).items()
    }


def _message(row: dict) -> SourceMessage:
    return SourceMessage.read(
        row["conversation_id"],
        row["message_id"],
        row["content"],
        row["created_at"],
        row["stale"],
        row["agent_id"],
    )


def _known_signal(row: dict) -> KnownSignal:
    return KnownSignal(
        UUID(row["signal_id"]),
        row["content"],
        row["normalized"],
        row["tier"],
        row["kind"],
        row["origin"],
        row["agent_id"],
        row["valid_to"],
    )
