"""The reads the command line makes of a user's signals itself: whether a user is known, the list of a
user's signals with their evidence, and the demo's sample user."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import psycopg

from agent_signals.errors import UnknownUser
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class ListedSignal:
    """One row of `signals list`; evidence holds dicts of conversation_id, message_id and quote."""

    signal_id: UUID
    tier: str
    origin: str
    kind: str
    status: str
    mentions: int
    last_seen: datetime
    content: str
    evidence: list[dict]
    agent_id: str | None = None  # None: the profile
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    first_seen: datetime | None = None


def user_exists(conn: psycopg.Connection, user_id: str) -> bool:
    """Whether the user has conversations or signals."""
    return conn.execute(query("signal_reads/user_exists"), {"user_id": user_id}).fetchone()[0]


def require_user(conn: psycopg.Connection, user_id: str) -> None:
    """Refuse a user with no conversations and no signals (a typo, most often)."""
    if not user_exists(conn, user_id):
        raise UnknownUser(f"no conversations or signals for user {user_id!r}", hint="check the user id")


def list_signals(
    conn: psycopg.Connection, user_id: str, *, include_inactive: bool = False
) -> list[ListedSignal]:
    """A known user's signals, the user's own first, then core, then the most recently seen; active only
    unless include_inactive (archived, ended, merged and deleted too, and those held for review: pending,
    rejected)."""
    require_user(conn, user_id)
    rows = conn.execute(query("signal_reads/list_signals"), {"user_id": user_id, "all": include_inactive})
    return [ListedSignal(*row) for row in rows.fetchall()]


def sample_user(conn: psycopg.Connection) -> str | None:
    """The user with the most active signals, or None when there is none."""
    row = conn.execute(query("signal_reads/sample_user")).fetchone()
    return row[0] if row else None
