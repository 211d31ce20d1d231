"""What a user (or an application's settings page, or an operator) does to signals by hand: add, edit and
delete (through the SQL functions of sql/functions/50_user_paths.sql, the only way to touch a user's own
signals; their statements are in store/own_signals.py), semantic search, and undo of a reconciliation
decision.

A change by hand drops the user's summary in the same transaction (it described the old set: a deleted or
edited text must not stay in it; the next run writes a new one, the user stays marked dirty for it), and
`refresh_context` rebuilds the user's rows of the context views, so that the change is in
context.user_context when the command returns."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg

from agent_signals.adapters import llm, providers
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.stages.embed import embed_missing
from agent_signals.store import database, own_signals


class SignalNotFound(AgentSignalsError):
    """A command named a signal or an event that does not exist."""


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
    ids = own_signals.ids_starting(conn, user_id, ref)
    if not ids:
        raise SignalNotFound(f"user {user_id!r} has no signal {ref!r}", hint=f"see the ids with {listed}")
    if len(ids) > 1:
        raise SignalNotFound(f"{ref!r} names several signals of {user_id!r}", hint="give more of the id")
    return ids[0]


@contextmanager
def _summary_dropped(conn: psycopg.Connection, settings: Settings, user_id: str) -> Iterator[None]:
    """The change made inside, and the drop of the summary it made stale, in one transaction."""
    with conn.transaction():
        yield
        own_signals.drop_stale_summary(conn, user_id)


def add_signal(
    conn: psycopg.Connection,
    settings: Settings,
    user_id: str,
    content: str,
    kind: str,
    agent_id: str | None = None,
) -> UUID:
    with _summary_dropped(conn, settings, user_id):
        return own_signals.add(conn, user_id, content, kind, agent_id)


def edit_signal(
    conn: psycopg.Connection,
    settings: Settings,
    user_id: str,
    signal_id: UUID,
    content: str,
    kind: str | None,
) -> UUID:
    with _summary_dropped(conn, settings, user_id):
        return own_signals.edit(conn, user_id, signal_id, content, kind)


def forget_user(conn: psycopg.Connection, settings: Settings, user_id: str) -> int:
    """Remove everything derived about a user; returns how many signals went."""
    return own_signals.forget(conn, user_id)


def delete_signal(conn: psycopg.Connection, settings: Settings, user_id: str, signal_id: UUID) -> None:
    with _summary_dropped(conn, settings, user_id):
        own_signals.delete(conn, user_id, signal_id)


def refresh_context(settings: Settings, user_id: str) -> None:
    """Rebuild the user's rows of the context views now (the compiled incremental refresh, no model call),
    after a change by hand has committed. Nothing to do before the first run has built the dbt_views."""
    from agent_signals.adapters import dbt_views

    dbt_views.refresh_users(settings, [user_id])


async def _embed_user(settings: Settings, user_id: str) -> int:
    conn = await database.aconnect(database.database_url(settings), autocommit=True)
    try:
        return (await embed_missing(conn, settings, user_id)).signals
    finally:
        await conn.close()


def embed_own_signals(settings: Settings, user_id: str) -> int:
    """Embed the user's signals that have none yet (added by hand), so search finds them at once."""
    providers.register_offline(settings)
    return asyncio.run(_embed_user(settings, user_id))


def search(
    conn: psycopg.Connection, settings: Settings, text: str, *, user_id: str | None, limit: int = 10
) -> list[dict[str, Any]]:
    providers.register_offline(settings)
    vector = asyncio.run(llm.embed([text], settings)).vectors[0]
    return own_signals.search(conn, vector, user_id=user_id, limit=limit)


def undo(conn: psycopg.Connection, settings: Settings, event_id: int) -> str:
    """Reverse a reconciliation merge or demotion; returns what was done. One transaction."""
    event = own_signals.event(conn, event_id)
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
        if event["action"] == "demote":
            if not own_signals.undo_demotion(conn, event):
                raise AgentSignalsError(f"signal {survivor_id} is no longer active; nothing to undo")
            return f"signal {survivor_id} is core again"
        own_signals.undo_merge(conn, event)
        return f"{len(event['before']['absorbed'])} signal(s) separated again from {survivor_id}"
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
