"""The MCP server's statements: each a call of a function of schema mcp (sql/functions/97_mcp.sql) on a
connection that became agent_signals_mcp (`become_mcp`). A function's refusal becomes an AgentSignalsError
with its message and hint (UnknownUser for a user no conversation or signal names)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row

from agent_signals.errors import AgentSignalsError, UnknownUser
from agent_signals.store.embeddings import vector_text
from agent_signals.store.sqlfiles import query

ROLE = "agent_signals_mcp"


class NotPermitted(AgentSignalsError):
    """The database refused the MCP role something (a missing grant, or a signal out of the caller's reach)."""


def become_mcp(conn: psycopg.Connection) -> None:
    """The session as agent_signals_mcp; a login role that is not its member is refused with the fix."""
    try:
        conn.execute(query("agent_tools/become_mcp"))
    except psycopg.errors.InvalidParameterValue as exc:  # role does not exist: the database is not migrated
        raise AgentSignalsError(
            f"the role {ROLE} does not exist: {exc.diag.message_primary}",
            hint="run `agent-signals db migrate` (as the database's owner)",
        ) from None
    except psycopg.errors.InsufficientPrivilege:
        user = conn.info.user
        raise NotPermitted(
            f"the login role {user!r} cannot become {ROLE}",
            hint=f"grant it: `grant {ROLE} to {user}` (or set AGENT_SIGNALS_MCP_DATABASE_URL to a login role that is "
            "a member)",
        ) from None


@contextmanager
def _refusals() -> Iterator[None]:
    try:
        yield
    except psycopg.errors.NoDataFound as exc:
        message = exc.diag.message_primary or str(exc)
        kind = (
            UnknownUser if message.startswith("no conversations or signals for user") else AgentSignalsError
        )
        raise kind(message, hint=exc.diag.message_hint) from None
    except psycopg.errors.InsufficientPrivilege as exc:
        raise NotPermitted(exc.diag.message_primary or str(exc), hint=exc.diag.message_hint) from None
    except (psycopg.errors.RaiseException, psycopg.errors.DataError, psycopg.errors.IntegrityError,
            psycopg.errors.ObjectNotInPrerequisiteState) as exc:  # fmt: skip
        raise AgentSignalsError(exc.diag.message_primary or str(exc), hint=exc.diag.message_hint) from None


@dataclass(frozen=True)
class Block:
    markdown: str
    summary: str | None
    refreshed_at: datetime
    rendered: str  # 'view', 'live' or 'as_of'


def context(conn: psycopg.Connection, user_id: str, agent_id: str | None, as_of: datetime | None) -> Block:
    with _refusals(), conn.transaction():
        row = conn.execute(
            query("agent_tools/get_context"), {"user_id": user_id, "agent_id": agent_id, "as_of": as_of}
        ).fetchone()
    return Block(*row)


def search(
    conn: psycopg.Connection, user_id: str, vector: list[float], limit: int, agent_id: str | None
) -> list[dict[str, Any]]:
    params = {"user_id": user_id, "embedding": vector_text(vector), "limit": limit, "agent_id": agent_id}
    with _refusals(), conn.transaction():
        return (
            conn.cursor(row_factory=dict_row).execute(query("agent_tools/search_signals"), params).fetchall()
        )


def remember(
    conn: psycopg.Connection,
    user_id: str,
    content: str,
    kind: str,
    agent_id: str | None,
    vector: list[float] | None,
    held_reason: str | None,
) -> tuple[UUID, str]:
    params = {"user_id": user_id, "content": content, "kind": kind, "agent_id": agent_id,
              "embedding": vector_text(vector), "held_reason": held_reason}  # fmt: skip
    with _refusals(), conn.transaction():
        signal_id, status = conn.execute(query("agent_tools/remember"), params).fetchone()
    return signal_id, status


def forget(conn: psycopg.Connection, user_id: str, signal_id: UUID, agents: list[str] | None) -> None:
    with _refusals(), conn.transaction():
        conn.execute(
            query("agent_tools/forget"), {"user_id": user_id, "signal_id": signal_id, "agents": agents}
        )
