"""Decide, then write (stages/apply.py, stages/reconcile.py) against a real PostgreSQL: while the model is
asked to reconcile a user's core signals, no transaction is open and none of the user's rows or write lock
is held (another session sees and takes them at once); a core set that changed while the model was asked is
left to the deterministic rule, with no second call."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from agent_signals.core.outcome import Provenance, UserOutcome
from agent_signals.core.prompting.answers import ReconcileAnswer
from agent_signals.core.prompting.extract_calls import SourceMessage, UserMessages
from agent_signals.core.prompting.prompts import is_reconcile_prompt
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Cite, Proposal
from agent_signals.flows.extract import extract_signals
from agent_signals.limits import CORE_CAP
from agent_signals.stages.apply import apply_user
from agent_signals_offline.provider import answer as offline_answer
from tests.test_buckets import SYSTEMS, core_count, owns_each_message, state_facts

pytestmark = [pytest.mark.db]

T0 = datetime(2026, 3, 1, tzinfo=UTC)
# other client sessions of this database inside a transaction, and the row and table locks they hold
OPEN_TRANSACTIONS = """select count(*) from pg_stat_activity
                       where datname = current_database() and backend_type = 'client backend'
                         and pid <> pg_backend_pid() and xact_start is not null"""
LOCKS_HELD = """select count(*) from pg_locks l join pg_stat_activity a using (pid)
                where a.datname = current_database() and l.pid <> pg_backend_pid()
                  and l.locktype in ('relation', 'tuple', 'transactionid')"""


def probe(conn: psycopg.Connection, user_id: str) -> dict[str, object]:
    """What another session sees of the write path: open transactions, locks, and whether it can take the
    user's rows (FOR UPDATE NOWAIT) and the user's write lock (lock_user.sql's key) at once."""
    seen: dict[str, object] = {
        "open_transactions": conn.execute(OPEN_TRANSACTIONS).fetchone()[0],
        "locks_held": conn.execute(LOCKS_HELD).fetchone()[0],
    }
    try:
        with conn.transaction(force_rollback=True):
            conn.execute("select 1 from signals.signals where user_id = %s for update nowait", [user_id])
        seen["rows_free"] = True
    except psycopg.errors.LockNotAvailable:
        seen["rows_free"] = False
    with conn.transaction(force_rollback=True):
        seen["user_lock_free"] = conn.execute(
            "select pg_try_advisory_xact_lock(hashtextextended('agent_signals.user:' || %s, 0))", [user_id]
        ).fetchone()[0]
    return seen


FREE = {"open_transactions": 0, "locks_held": 0, "rows_free": True, "user_lock_free": True}


def proposal(user_id: str, text: str, day: int) -> tuple[Proposal, SourceMessage]:
    message = SourceMessage(f"{user_id}-c{day}", f"m-{normalize_content(text)}", f"I say: {text}",
                            T0 + timedelta(days=day))  # fmt: skip
    cite = (Cite(message, text),)
    return Proposal("create", text, normalize_content(text), "core", "ownership", cite), message


async def apply(url: str, settings, user_id: str, texts, day: int, decide=None) -> Counter[str]:
    made = [proposal(user_id, f"Owns the {t}", day) for t in texts]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as aconn:
        outcome = UserOutcome(UserMessages(user_id, [m for _p, m in made]),
                              Provenance(uuid.uuid4(), "extract/test", "test"), proposals=[p for p, _m in made])  # fmt: skip
        return await apply_user(aconn, settings, outcome, decide=decide, at=T0 + timedelta(days=30))


def demote(core, content: str) -> ReconcileAnswer:
    """An answer demoting the core line of this text."""
    (handle,) = [line.handle for line in core if line.content == content]
    return ReconcileAnswer.model_validate({"decisions": [{"action": "demote", "signal": handle}]})


def demotions(conn, user_id: str) -> list[tuple[str, str]]:
    return conn.execute(
        "select s.content, e.after ->> 'reason' from signals.events e join signals.signals s using (signal_id) "
        "where e.user_id = %s and e.action = 'demote' order by 1",
        [user_id],
    ).fetchall()


def test_the_probe_sees_an_open_write_transaction(database_url, settings, conn):
    """The check itself: inside a write transaction of the user, the probe sees it and its locks."""
    asyncio.run(apply(database_url, settings, "ann", SYSTEMS[:2], day=0))

    async def holding() -> dict[str, object]:
        aconn = await psycopg.AsyncConnection.connect(database_url, autocommit=True)
        async with aconn, aconn.transaction():
            await aconn.execute("select pg_advisory_xact_lock(hashtextextended('agent_signals.user:ann', 0))")
            await aconn.execute("select 1 from signals.signals where user_id = 'ann' for update")
            return probe(conn, "ann")

    seen = asyncio.run(holding())
    assert seen["open_transactions"] == 1 and seen["locks_held"] > 0
    assert seen["rows_free"] is False and seen["user_lock_free"] is False


def test_the_model_is_asked_with_no_transaction_open_and_no_lock_held(database_url, settings, conn):
    asyncio.run(apply(database_url, settings, "bo", SYSTEMS[:CORE_CAP], day=0))
    assert core_count(conn, "bo") == CORE_CAP
    seen: list[dict[str, object]] = []

    async def decide(core, own, cap) -> ReconcileAnswer:
        seen.append(probe(conn, "bo"))
        assert (len(core), cap) == (CORE_CAP + 1, CORE_CAP)
        return demote(core, f"Owns the {SYSTEMS[2]}")

    counts = asyncio.run(
        apply(database_url, settings, "bo", SYSTEMS[CORE_CAP : CORE_CAP + 1], day=1, decide=decide)
    )
    assert seen == [FREE]  # one call, made with nothing of the user held
    assert counts["created"] == 1 and counts["demoted"] == 1
    assert core_count(conn, "bo") == CORE_CAP
    assert demotions(conn, "bo") == [(f"Owns the {SYSTEMS[2]}", "reconciler")]


def test_a_core_set_changed_while_the_model_was_asked_is_left_to_the_rule(database_url, settings, conn):
    asyncio.run(apply(database_url, settings, "cy", SYSTEMS[:CORE_CAP], day=0))
    calls = []

    async def decide(core, own, cap) -> ReconcileAnswer:
        calls.append(core)
        # a concurrent write (another session, committed) changes a core signal the model was shown
        conn.execute(
            "update signals.signals set content = 'Owns the whole billing ledger', "
            "normalized = 'owns the whole billing ledger' where user_id = 'cy' and content = %s",
            [f"Owns the {SYSTEMS[0]}"],
        )
        return demote(core, new)

    new = f"Owns the {SYSTEMS[CORE_CAP]}"  # the freshest: never the rule's choice
    counts = asyncio.run(
        apply(database_url, settings, "cy", SYSTEMS[CORE_CAP : CORE_CAP + 1], day=1, decide=decide)
    )
    assert len(calls) == 1  # the model is not asked again
    assert counts["reconcile_stale"] == 1 and counts["demoted"] == 1
    assert core_count(conn, "cy") == CORE_CAP
    ((content, reason),) = demotions(conn, "cy")
    assert reason == "cap_rule" and content != new  # the rule's demotion, not the answer's


@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_runs_reconciliation_call_holds_nothing_of_the_user(scripted, database_url, settings, conn):
    """Through the run's own stages (apply_safely, reconciler), and in a replay (whose writes happen in a
    transaction that is always rolled back): the reconciliation call sees the user's rows free. (`scripted`
    first: `settings` then names the scripted model.)"""
    from agent_signals.evaluation.replay import replay
    from agent_signals.store.source import Window
    from tests.builders import T0 as LOADED

    seen: list[dict[str, object]] = []

    def script(prompt, extra: bool = False):
        if is_reconcile_prompt(prompt):
            seen.append(probe(conn, "di"))
            return offline_answer(prompt)
        answer = json.loads(owns_each_message(prompt))
        if extra:  # one more core fact per message: the replay crosses the cap too
            answer["actions"] += [
                {**a, "content": a["content"].replace("Owns", "Leads")} for a in answer["actions"]
            ]
        return json.dumps(answer)

    scripted.script = script
    state_facts(conn, settings, "di", SYSTEMS[:CORE_CAP], day=0)
    asyncio.run(extract_signals(kind="manual", settings=settings))
    state_facts(conn, settings, "di", SYSTEMS[CORE_CAP : CORE_CAP + 2], day=1)
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["failures"] == 0 and summary["llm_calls_by_purpose"] == {"extract": 1, "reconcile": 1}
    assert summary["actions"] == {"created": 2, "demoted": 2}  # the answer applied: no reconcile_stale
    assert seen == [FREE] and core_count(conn, "di") == CORE_CAP

    scripted.script = lambda prompt: script(prompt, extra=True)
    window = Window(
        until=LOADED + timedelta(days=2), since=LOADED + timedelta(days=1), ignore_watermarks=True
    )
    before = conn.execute("select count(*), max(updated_at) from signals.signals").fetchone()
    _diff, usage = asyncio.run(replay(settings, window))
    assert usage["failures"] == 0 and usage["llm_calls"] == 2 and seen[1:] == [FREE]
    # the replay's facts were written before under the same deterministic ids (set aside, not gone): written
    # again under new ones, the answer still applies to the core set it was given
    assert usage["actions"] == {"created": 4, "demoted": 2}
    assert conn.execute("select count(*), max(updated_at) from signals.signals").fetchone() == before
