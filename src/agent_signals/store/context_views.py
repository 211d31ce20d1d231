"""The context views as the command line reads and rebuilds them itself: a user's block of
context.user_context, and marking every user clean after a full rebuild."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class ContextBlock:
    markdown: str
    summary: str | None
    refreshed_at: datetime


def context_block(
    conn: psycopg.Connection, settings: Settings, user_id: str, agent_id: str | None = None
) -> ContextBlock | None:
    """The user's row of context.user_context (of context.agent_context for an agent), None when it has none;
    an error when the views were never built."""
    name, params = ("agent_context", {"user_id": user_id, "agent_id": agent_id}) if agent_id else (
        "user_context", {"user_id": user_id})  # fmt: skip
    try:
        row = conn.execute(query(settings, name), params).fetchone()
    except psycopg.errors.UndefinedTable:
        raise AgentSignalsError(
            "the context views do not exist yet",
            hint="run `agent-signals run` (or `agent-signals views refresh`)",
        ) from None
    return ContextBlock(*row) if row else None


def clear_all_dirty(conn: psycopg.Connection, settings: Settings, refresh_started: datetime) -> None:
    """After a full rebuild that started at refresh_started: every user changed before it is clean."""
    conn.execute(query(settings, "clear_all_dirty"), {"refresh_started": refresh_started})
