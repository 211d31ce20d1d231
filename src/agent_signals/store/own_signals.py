"""The statements of what a user does to signals by hand: add, edit, delete and forget through the SQL
functions of sql/functions/50_user_paths.sql (the only way to touch a user's own signals; their refusals
become AgentSignalsError with the function's message and hint), the drop of a summary a change made stale,
signal ids by prefix, semantic search, and the undo of a reconciliation merge or demotion."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agent_signals.core.text import normalize_content
from agent_signals.errors import AgentSignalsError
from agent_signals.store.embeddings import vector_text
from agent_signals.store.sqlfiles import query

REFUSALS = (
    psycopg.errors.RaiseException,
    psycopg.errors.DataError,
    psycopg.errors.IntegrityError,
    psycopg.errors.NoDataFound,
)


def _call(conn: psycopg.Connection, name: str, params: dict[str, Any]) -> Any:
    """One SQL function's result, in its own transaction (a savepoint inside another); a refusal becomes an
    AgentSignalsError with the function's message and hint."""
    try:
        with conn.transaction():
            return conn.execute(query(name), params).fetchone()[0]
    except REFUSALS as exc:
        raise AgentSignalsError(exc.diag.message_primary or str(exc), hint=exc.diag.message_hint) from None


def add(
    conn: psycopg.Connection,
    user_id: str,
    content: str,
    kind: str,
    agent_id: str | None = None,
) -> UUID:
    """signals.add_signal: a new signal of the user's own (of one agent's scope when agent_id is given);
    returns its id."""
    return _call(
        conn,
        "own_signals/add_signal",
        {"user_id": user_id, "content": content, "kind": kind, "agent_id": agent_id},
    )


def edit(
    conn: psycopg.Connection,
    user_id: str,
    signal_id: UUID,
    content: str,
    kind: str | None,
) -> UUID:
    """signals.edit_signal: the signal's text (and kind, unless None) as the user's own; returns its id."""
    params = {"user_id": user_id, "signal_id": signal_id, "content": content, "kind": kind}
    return _call(conn, "own_signals/edit_signal", params)


def delete(conn: psycopg.Connection, user_id: str, signal_id: UUID) -> None:
    """signals.delete_signal: the signal deleted as the user (an inferred one is never learned again)."""
    _call(conn, "own_signals/delete_signal", {"user_id": user_id, "signal_id": signal_id})


def forget(conn: psycopg.Connection, user_id: str) -> int:
    """signals.forget_user: everything derived about the user removed; returns how many signals went."""
    return _call(conn, "own_signals/forget_user", {"user_id": user_id})


def drop_stale_summary(conn: psycopg.Connection, user_id: str) -> None:
    """The user's summary, when it no longer describes their signals (its fingerprint differs)."""
    conn.execute(query("own_signals/drop_stale_summary"), {"user_id": user_id})


def ids_starting(conn: psycopg.Connection, user_id: str, prefix: str) -> list[UUID]:
    """Up to two of the user's signal ids whose text form starts with `prefix` (an exact prefix, never a
    pattern)."""
    rows = conn.execute(query("own_signals/resolve_signal_id"), {"user_id": user_id, "prefix": prefix})
    return [row[0] for row in rows.fetchall()]


def search(
    conn: psycopg.Connection, vector: list[float], *, user_id: str | None, limit: int
) -> list[dict[str, Any]]:
    """The active signals (of one user, or of all) nearest to `vector`: user_id, signal_id, origin, tier,
    kind, content and similarity (cosine), the most similar first."""
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute(
        query("own_signals/search_signals"),
        {"embedding": vector_text(vector), "user_id": user_id, "limit": limit},
    ).fetchall()


def event(conn: psycopg.Connection, event_id: int) -> dict[str, Any] | None:
    """An event of signals.events (signal_id, user_id, action, actor, before, after) and whether an undo
    reversed it already (`undone`); None when there is none."""
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute(query("own_signals/get_event"), {"event_id": event_id}).fetchone()


def _lock_user(conn: psycopg.Connection, user_id: str) -> None:
    conn.execute(query("shared/lock_users"), {"user_ids": [user_id]})


def _record_undo(conn: psycopg.Connection, event: dict[str, Any], after: dict) -> None:
    conn.execute(
        query("shared/insert_event"),
        {"signal_id": event["signal_id"], "user_id": event["user_id"], "run_id": None, "action": "undo",
         "actor": "user", "prompt_version": None, "model": None, "before": None,
         "after": Jsonb({"undoes": event["event_id"], "signal": after})},
    )  # fmt: skip


def undo_demotion(conn: psycopg.Connection, event: dict[str, Any]) -> bool:
    """A demotion reversed under the user's lock: its signal core again, and an undo event, in one
    transaction. False (nothing done) when the signal is no longer active. Raises
    psycopg.errors.CheckViolation when the user's core is full."""
    with conn.transaction():
        _lock_user(conn, event["user_id"])
        params = {"signal_id": event["signal_id"], "tier": "core"}
        row = conn.execute(query("shared/set_tier"), params).fetchone()
        if row is None:
            return False
        _record_undo(conn, event, row[0])
    return True


def undo_merge(conn: psycopg.Connection, event: dict[str, Any]) -> None:
    """A merge reversed under the user's lock, in one transaction: the absorbed signals restored as they
    were, the evidence copied to the survivor removed, the survivor's text, kind and tier before the merge
    back (no embedding until the next one is computed), and an undo event. Raises
    psycopg.errors.CheckViolation when the user's core is full and UniqueViolation when a restored text
    duplicates one the user has now."""
    survivor_id, before = event["signal_id"], event["before"]["survivor"]
    with conn.transaction():
        _lock_user(conn, event["user_id"])
        for snapshot in event["before"]["absorbed"]:
            conn.execute(
                query("own_signals/restore_absorbed"),
                {"signal_id": snapshot["signal_id"], "survivor_id": survivor_id,
                 "status": snapshot["status"], "tier": snapshot["tier"]},
            )  # fmt: skip
            conn.execute(query("shared/sync_mentions"), {"signal_ids": [snapshot["signal_id"]]})
        conn.execute(
            query("own_signals/remove_copied_evidence"),
            {"survivor_id": survivor_id, "copied": Jsonb(event["after"]["copied"])},
        )
        conn.execute(
            query("shared/rewrite_signal"),
            {"signal_id": survivor_id, "content": before["content"],
             "normalized": normalize_content(before["content"]), "kind": before["kind"],
             "tier": before["tier"], "embedding": None},
        )  # fmt: skip
        after = conn.execute(query("shared/sync_mentions"), {"signal_ids": [survivor_id]}).fetchone()[1]
        _record_undo(conn, event, after)
