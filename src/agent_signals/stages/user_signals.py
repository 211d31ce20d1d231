"""What a user (or an application's settings page, or an operator) does to signals by hand: add, edit and
delete (through the SQL functions of sql/migrations/m004_buckets.sql, the only way to touch a user's own
signals), semantic search, and undo of a reconciliation decision.

A change by hand drops the user's summary in the same transaction (it described the old set: a deleted or
edited text must not stay in it; the next run writes a new one, the user stays marked dirty for it), and
`refresh_context` rebuilds the user's rows of the context views, so that the change is in
context.user_context when the command returns."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agent_signals.adapters import llm
from agent_signals.config import Settings
from agent_signals.core.text import normalize_content
from agent_signals.errors import AgentSignalsError
from agent_signals.stages.embed import embed_missing
from agent_signals.store import db
from agent_signals.store.sqlfiles import query
from agent_signals.store.vectors import vector_text


class SignalNotFound(AgentSignalsError):
    """A command named a signal or an event that does not exist."""


def _user_error(exc: psycopg.Error) -> AgentSignalsError:
    diag = exc.diag
    return AgentSignalsError(diag.message_primary or str(exc), hint=diag.message_hint)


ID_FORM = "00000000-0000-0000-0000-000000000000"  # the text form of a signal id: hex digits and dashes
ID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MIN_PREFIX = 4


def resolve_signal(conn: psycopg.Connection, settings: Settings, user_id: str, ref: str) -> UUID:
    """A signal id, or a unique prefix of one (at least 4 characters), of this user. Matched exactly: a
    reference that is not the start of an id's text form (hex digits, dashes where the id has them) is
    refused before any query."""
    ref = ref.strip().lower()
    listed = f"`agent-signals signals list --user {user_id} --all`"
    if len(ref) < MIN_PREFIX or not ID_TEXT.fullmatch(ref + ID_FORM[len(ref) :]):
        raise SignalNotFound(
            f"{ref!r} is not a signal id or the start of one",
            hint=f"give at least {MIN_PREFIX} characters of an id (hex digits and dashes) as {listed} prints them",
        )
    rows = conn.execute(query(settings, "resolve_signal_id"), {"user_id": user_id, "prefix": ref}).fetchall()
    if not rows:
        raise SignalNotFound(f"user {user_id!r} has no signal {ref!r}", hint=f"see the ids with {listed}")
    if len(rows) > 1:
        raise SignalNotFound(f"{ref!r} names several signals of {user_id!r}", hint="give more of the id")
    return rows[0][0]


def _call(conn: psycopg.Connection, settings: Settings, name: str, params: dict[str, Any]) -> Any:
    try:
        with conn.transaction():
            return conn.execute(query(settings, name), params).fetchone()[0]
    except (psycopg.errors.RaiseException, psycopg.errors.DataError, psycopg.errors.IntegrityError,
            psycopg.errors.NoDataFound) as exc:  # fmt: skip
        raise _user_error(exc) from None


def _call_and_drop_summary(
    conn: psycopg.Connection, settings: Settings, user_id: str, name: str, params: dict[str, Any]
) -> Any:
    """A user path, and the drop of the summary it made stale, in one transaction."""
    with conn.transaction():
        result = _call(conn, settings, name, params)
        conn.execute(query(settings, "drop_stale_summary"), {"user_id": user_id})
    return result


def add_signal(conn: psycopg.Connection, settings: Settings, user_id: str, content: str, kind: str) -> UUID:
    params = {"user_id": user_id, "content": content, "kind": kind}
    return _call_and_drop_summary(conn, settings, user_id, "add_signal", params)


def edit_signal(
    conn: psycopg.Connection,
    settings: Settings,
    user_id: str,
    signal_id: UUID,
    content: str,
    kind: str | None,
) -> UUID:
    params = {"user_id": user_id, "signal_id": signal_id, "content": content, "kind": kind}
    return _call_and_drop_summary(conn, settings, user_id, "edit_signal", params)


def forget_user(conn: psycopg.Connection, settings: Settings, user_id: str) -> int:
    """Remove everything derived about a user; returns how many signals went."""
    return _call(conn, settings, "forget_user", {"user_id": user_id})


def delete_signal(conn: psycopg.Connection, settings: Settings, user_id: str, signal_id: UUID) -> None:
    params = {"user_id": user_id, "signal_id": signal_id}
    _call_and_drop_summary(conn, settings, user_id, "delete_signal", params)


def refresh_context(settings: Settings, user_id: str) -> None:
    """Rebuild the user's rows of the context views now (the compiled incremental refresh, no model call),
    after a change by hand has committed. Nothing to do before the first run has built the views."""
    from agent_signals.adapters import (
        dbt as views,  # the compiled plan; dbt itself loads only when it must compile
    )

    views.refresh_users(settings, [user_id])


async def _embed_user(settings: Settings, user_id: str) -> int:
    conn = await db.aconnect(db.database_url(settings), autocommit=True)
    try:
        return (await embed_missing(conn, settings, user_id)).signals
    finally:
        await conn.close()


def embed_user_signals(settings: Settings, user_id: str) -> int:
    """Embed the user's signals that have none yet (added by hand), so search finds them at once."""
    llm.register_offline(embedding_model=settings.embedding_model)
    return asyncio.run(_embed_user(settings, user_id))


def search(
    conn: psycopg.Connection, settings: Settings, text: str, *, user_id: str | None, limit: int = 10
) -> list[dict[str, Any]]:
    llm.register_offline(embedding_model=settings.embedding_model)
    vector = asyncio.run(llm.embed([text], settings)).vectors[0]
    cur = conn.cursor(row_factory=dict_row)
    return cur.execute(
        query(settings, "search_signals"),
        {"embedding": vector_text(vector), "user_id": user_id, "limit": limit},
    ).fetchall()


def undo(conn: psycopg.Connection, settings: Settings, event_id: int) -> str:
    """Reverse a reconciliation merge or demotion; returns what was done. One transaction."""
    cur = conn.cursor(row_factory=dict_row)
    event = cur.execute(query(settings, "get_event"), {"event_id": event_id}).fetchone()
    if event is None:
        raise SignalNotFound(f"there is no event {event_id}", hint="event ids are in signals.events")
    if event["actor"] != "reconciler" or event["action"] not in ("merge", "demote"):
        raise AgentSignalsError(
            f"event {event_id} is a {event['actor']} {event['action']}; only reconciliation merges and "
            "demotions can be undone"
        )
    if event["undone"]:
        raise AgentSignalsError(f"event {event_id} was already undone")
    user_id, survivor_id = event["user_id"], event["signal_id"]
    try:
        with conn.transaction():
            cur.execute(query(settings, "lock_user"), {"user_id": user_id})
            if event["action"] == "demote":
                after = cur.execute(
                    query(settings, "set_tier"), {"signal_id": survivor_id, "tier": "core"}
                ).fetchone()
                if after is None:
                    raise AgentSignalsError(f"signal {survivor_id} is no longer active; nothing to undo")
                done = f"signal {survivor_id} is core again"
            else:
                before = event["before"]["survivor"]
                for snapshot in event["before"]["absorbed"]:
                    cur.execute(
                        query(settings, "restore_absorbed"),
                        {
                            "signal_id": snapshot["signal_id"],
                            "survivor_id": survivor_id,
                            "status": snapshot["status"],
                            "tier": snapshot["tier"],
                        },
                    )
                    cur.execute(query(settings, "sync_mentions"), {"signal_id": snapshot["signal_id"]})
                cur.execute(
                    query(settings, "remove_copied_evidence"),
                    {"survivor_id": survivor_id, "copied": Jsonb(event["after"]["copied"])},
                )
                cur.execute(
                    query(settings, "rewrite_signal"),
                    {
                        "signal_id": survivor_id,
                        "content": before["content"],
                        "normalized": normalize_content(before["content"]),
                        "kind": before["kind"],
                        "tier": before["tier"],
                        "embedding": None,
                    },
                )
                after = cur.execute(query(settings, "sync_mentions"), {"signal_id": survivor_id}).fetchone()
                done = f"{len(event['before']['absorbed'])} signal(s) separated again from {survivor_id}"
            cur.execute(
                query(settings, "insert_event"),
                {
                    "signal_id": survivor_id,
                    "user_id": user_id,
                    "run_id": None,
                    "action": "undo",
                    "actor": "user",
                    "prompt_version": None,
                    "model": None,
                    "before": None,
                    "after": Jsonb({"undoes": event_id, "signal": after["snapshot"]}),
                },
            )
    except psycopg.errors.CheckViolation as exc:
        raise AgentSignalsError(
            f"undoing event {event_id} would leave user {user_id} over the core cap",
            hint="demote or delete another core signal of this user first",
        ) from exc
    except psycopg.errors.UniqueViolation as exc:
        raise AgentSignalsError(
            f"undoing event {event_id} would duplicate a signal the user has now",
            hint=str(exc.diag.message_primary),
        ) from exc
    return done
