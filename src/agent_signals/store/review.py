"""The statements of the review queue (sql/functions/90_review.sql): the signals held for review (status
pending) with their reasons and evidence, a signal named by a reviewer, and the two SQL functions that
decide, signals.review_approve and signals.review_reject (an application's own review page calls the same
functions). Their refusals are raised as psycopg's errors: stages/by_hand/reviews.py says what to do about them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import psycopg

from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class PendingSignal:
    """One signal waiting for review; evidence holds dicts of conversation_id, message_id and quote."""

    signal_id: UUID
    user_id: str
    agent_id: str | None  # None: the profile
    kind: str
    tier: str
    content: str
    reason: str  # why it was held, redacted
    held_at: datetime
    replaces: str | None  # a held update: the text of the version approving it ends
    evidence: list[dict]


@dataclass(frozen=True)
class Approved:
    """What signals.review_approve did: the signal's status and tier after, and why its tier is not the one
    it was held with (None: it is)."""

    status: str
    tier: str
    note: str | None


def pending(conn: psycopg.Connection, user_id: str | None = None) -> list[PendingSignal]:
    """The signals waiting for review, of one user or of all, oldest first."""
    rows = conn.execute(query("review/review_list"), {"user_id": user_id}).fetchall()
    return [PendingSignal(*row) for row in rows]


def find(conn: psycopg.Connection, signal_id: UUID | None, prefix: str) -> list[tuple[UUID, str, str]]:
    """(signal id, user, status) of the signal with this id (any status), or, with none, of up to two
    pending signals whose id starts with `prefix`."""
    params = {"signal_id": signal_id, "prefix": prefix}
    return [tuple(row) for row in conn.execute(query("review/review_find"), params).fetchall()]


def approve(conn: psycopg.Connection, signal_id: UUID, actor: str) -> Approved:
    """signals.review_approve in its own transaction (a savepoint inside another)."""
    with conn.transaction():
        row = conn.execute(
            query("review/review_approve"), {"signal_id": signal_id, "actor": actor}
        ).fetchone()
    return Approved(*row)


def reject(conn: psycopg.Connection, signal_id: UUID, actor: str) -> None:
    """signals.review_reject in its own transaction (a savepoint inside another)."""
    with conn.transaction():
        conn.execute(query("review/review_reject"), {"signal_id": signal_id, "actor": actor})
