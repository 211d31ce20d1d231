"""The statements of evaluation/: the inferred signals an evaluation run stored, and a replay's rehearsal
(its run row, and the window's stored signals set aside before apply and read back after), each signal with
the messages it cites, its scope and its validity; and the evidence the demo's score reads."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import psycopg

from agent_signals.store.source import Window
from agent_signals.store.sqlfiles import query

# (signal_id, user_id, content, kind, tier, evidence, agent_id, valid_from, valid_to): evidence holds
# (conversation_id, message_id) pairs; agent_id is null for the profile; the fields of
# evaluation.matching.StoredSignal, in its order.
SignalRow = tuple[
    str, str, str, str, str, frozenset[tuple[str, str]], str | None, datetime | None, datetime | None
]


def _with_evidence(rows: list[tuple]) -> list[SignalRow]:
    return [
        (sid, user, content, kind, tier, frozenset(zip(conversations, messages, strict=True)), *rest)
        for sid, user, content, kind, tier, conversations, messages, *rest in rows
    ]


def stored_signals(conn: psycopg.Connection) -> list[SignalRow]:
    """The inferred signals an evaluation run stored (active, archived or ended: a fact whose validity ended
    was still extracted; merged ones are out), by user and text."""
    return _with_evidence(conn.execute(query("evaluation/eval_signals")).fetchall())


async def open_rehearsal_run(
    conn: psycopg.AsyncConnection, run_id: UUID, model: str, prompt_version: str
) -> None:
    """A replay's run row, inside the user's rehearsal transaction (always rolled back): what apply records
    refers to a run, and a replay leaves no ledger row behind."""
    params = {"run_id": run_id, "model": model, "prompt_version": prompt_version}
    await conn.execute(query("evaluation/rehearsal_run"), params)


async def window_signals(
    conn: psycopg.AsyncConnection, window: Window, user_id: str, *, set_aside: bool
) -> list[SignalRow]:
    """A user's active inferred signals citing a message of the window, by text; with `set_aside` (the read
    before apply, inside the rehearsal transaction) they are also set aside so that apply passes over them."""
    params = {**window.params, "user_id": user_id, "set_aside": set_aside}
    cur = await conn.execute(query("evaluation/replay_stored_signals"), params)
    return _with_evidence(await cur.fetchall())


def demo_evidence(conn: psycopg.Connection) -> psycopg.Cursor:
    """The (signal, user, conversation, message) of each message an active inferred signal cites: the demo's
    score reads them against the messages it planted (cli/demo/seeding.py)."""
    return conn.execute(query("evaluation/demo_evidence"))
