"""Messages set aside after a user's failed attempts (ops.set_aside, see retries.py): listing them for
review and releasing them, after which the next run reads them again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg

from agent_signals.errors import AgentSignalsError
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class SetAside:
    set_aside_id: int
    user_id: str
    conversation_id: str
    message_id: str
    attempts: int
    reason: str  # redacted when stored
    at: datetime
    released_at: datetime | None
    read_again_at: datetime | None


def list_set_aside(
    conn: psycopg.Connection,
    *,
    user_id: str | None = None,
    include_released: bool = False,
) -> list[SetAside]:
    rows = conn.execute(query("set_aside/list_set_aside"), {"user_id": user_id, "all": include_released})
    return [SetAside(*row) for row in rows.fetchall()]


def release(
    conn: psycopg.Connection,
    *,
    ids: tuple[int, ...] = (),
    user_id: str | None = None,
    everything: bool = False,
) -> list[tuple[int, str, str, str]]:
    """Release held messages; returns (id, user, conversation, message) of each. Naming none is an error."""
    if not (ids or user_id or everything):
        raise AgentSignalsError(
            "name the messages to release",
            hint="give their ids (`agent-signals set-aside list`), --user or --all",
        )
    params = {"ids": list(ids), "user_id": user_id, "everything": everything}
    released = [tuple(row) for row in conn.execute(query("set_aside/release_set_aside"), params).fetchall()]
    if not released:
        raise AgentSignalsError(
            "no held message matches", hint="`agent-signals set-aside list` shows the messages still held"
        )
    return released
