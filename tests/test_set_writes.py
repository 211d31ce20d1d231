"""The set-based write path (store/shard_writer.py): a shard's users written in one transaction, one statement
per table; a user whose rows the database refuses is isolated (the shard halved down to them), recorded, and
the others written; an answer whose actions restate each other is applied in order, as one user's would be.
Real flows, a real PostgreSQL, the scripted model."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent_signals.config import Settings
from agent_signals.flows.extract import extract_signals
from tests.builders import conversation, load_conversations
from tests.fakes import user_texts

USERS = [f"u{i}" for i in range(1, 8)]

# A trigger standing in for any row the database refuses (a constraint, a guard): u5's new signals.
REFUSE_U5 = """
create function public.refuse_u5() returns trigger language plpgsql as $$
begin
    if new.user_id = 'u5' then raise exception 'refused for the test: %', new.user_id; end if;
    return new;
end $$;
create trigger refuse_u5 before insert on signals.signals for each row execute function public.refuse_u5();
"""
ALLOW_U5 = "drop trigger refuse_u5 on signals.signals; drop function public.refuse_u5();"


def run(settings: Settings) -> dict:
    return asyncio.run(extract_signals(kind="manual", settings=settings))


def create(content: str, quote: str, tier: str = "core", kind: str = "role") -> dict:
    return {"action": "create", "content": content, "tier": tier, "kind": kind,
            "evidence": [{"message": "m1", "quote": quote}]}  # fmt: skip


def pilot_answer(prompt) -> str:
    text = user_texts(prompt)
    return json.dumps(
        {"actions": [create("Works as a pilot", "I'm a pilot")] if "I'm a pilot" in text else []}
    )


def signals_by_user(conn) -> dict[str, int]:
    rows = conn.execute("select user_id, count(*) from signals.signals group by user_id").fetchall()
    return dict(rows)


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_user_whose_rows_are_refused_is_isolated_and_the_rest_of_the_shard_is_written(
    conn, settings_with, scripted
):
    settings = settings_with(shards=1, failing_user_backoff_s=0)  # every user in one shard: one group
    scripted.script = pilot_answer
    for user in USERS:
        load_conversations(conn, settings, conversation(f"c-{user}", user, [("user", "I'm a pilot")]))
    conn.execute(REFUSE_U5)
    summary = run(settings)
    assert summary["failures"] == 1
    assert summary["actions"]["created"] == len(USERS) - 1
    assert signals_by_user(conn) == {u: 1 for u in USERS if u != "u5"}
    failed = conn.execute("select user_id, stage, resolved_at from ops.failures").fetchall()
    assert failed == [("u5", "apply", None)]
    watermarks = conn.execute("select user_id from signals.watermarks order by 1").fetchall()
    assert [w for (w,) in watermarks] == [u for u in USERS if u != "u5"]  # u5 still pending

    conn.execute(ALLOW_U5)
    again = run(settings)
    assert again["users"] == 1 and again["failures"] == 0 and again["actions"]["created"] == 1
    assert signals_by_user(conn) == {u: 1 for u in USERS}
    assert conn.execute("select count(*) from ops.failures where resolved_at is null").fetchone()[0] == 0


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_database_error_that_persists_is_never_counted_against_the_user(conn, settings_with, scripted):
    """The database refuses u5's rows run after run (a trigger, a constraint: the database's or the
    pipeline's fault, not u5's messages): each run records the failure, none counts it against u5, so their
    messages are never set aside and are read again once the database takes them."""
    settings = settings_with(shards=1, failing_user_backoff_s=0)
    scripted.script = pilot_answer
    for user in ("u4", "u5"):
        load_conversations(conn, settings, conversation(f"c-{user}", user, [("user", "I'm a pilot")]))
    conn.execute(REFUSE_U5)
    for _ in range(settings.run.failing_user_attempts + 1):
        assert run(settings)["failures"] == 1
    failures = conn.execute("select stage, counted, retry_after from ops.failures where user_id = 'u5'")
    assert failures.fetchall() == [("apply", False, None)] * (settings.run.failing_user_attempts + 1)
    assert conn.execute("select count(*) from ops.set_aside").fetchone()[0] == 0

    conn.execute(ALLOW_U5)
    assert run(settings)["actions"]["created"] == 1
    assert signals_by_user(conn) == {"u4": 1, "u5": 1}


# A trigger standing in for any view row the refresh refuses for one user: u2's rows of context.user_context.
REFUSE_U2_VIEW = """
create function public.refuse_u2() returns trigger language plpgsql as $$
begin
    if new.user_id = 'u2' then raise exception 'view row refused for the test: %', new.user_id; end if;
    return new;
end $$;
create trigger refuse_u2 before insert on context.user_context for each row execute function public.refuse_u2();
"""


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_user_whose_view_rows_fail_is_left_dirty_and_the_others_are_refreshed(
    conn, settings_with, scripted
):
    settings = settings_with(shards=1)
    scripted.script = pilot_answer
    users = ("u1", "u2", "u3")
    for user in users:
        load_conversations(conn, settings, conversation(f"c-{user}", user, [("user", "I'm a pilot")]))
    run(settings)  # builds the views
    conn.execute(REFUSE_U2_VIEW)
    refreshed = "select user_id, refreshed_at from context.user_context order by 1"
    before = dict(conn.execute(refreshed).fetchall())
    for user in users:  # restated: each user's signal changes, so each is refreshed
        load_conversations(conn, settings, conversation(f"c2-{user}", user, [("user", "I'm a pilot, yes")]))

    summary = run(settings)
    assert (summary["status"], summary["failures"]) == ("partial", 1)
    after = dict(conn.execute(refreshed).fetchall())
    assert after["u2"] == before["u2"] and all(after[u] > before[u] for u in ("u1", "u3"))
    failed = conn.execute("select user_id, stage, counted from ops.failures").fetchall()
    assert failed == [("u2", "refresh", False)]
    assert conn.execute("select user_id from signals.dirty_users").fetchall() == [("u2",)]

    conn.execute("drop trigger refuse_u2 on context.user_context; drop function public.refuse_u2();")
    assert run(settings)["status"] == "succeeded"  # the next run refreshes u2
    assert conn.execute(refreshed).fetchall()[1][1] > before["u2"]
    assert conn.execute("select count(*) from signals.dirty_users").fetchone()[0] == 0


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_actions_of_one_answer_see_the_ones_before_them_and_a_rerun_changes_nothing(
    conn, settings_with, scripted
):
    """Two users in one group; one's answer creates a signal and states it again in its next action (a
    reinforcement of the signal the first action wrote, not a second signal), then a third, new one."""
    settings = settings_with(shards=1)
    scripted.script = lambda prompt: json.dumps({"actions": [
        create("Works as a pilot", "I'm a pilot"),
        create("works as a pilot", "a pilot"),
        create("Prefers short answers", "I'm a pilot", tier="contextual", kind="communication"),
    ]} if "ann" in user_texts(prompt) or "I'm a pilot" in user_texts(prompt) else {"actions": []})  # fmt: skip
    load_conversations(conn, settings, conversation("c-ann", "ann", [("user", "ann here. I'm a pilot")]))
    load_conversations(conn, settings, conversation("c-bob", "bob", [("user", "I'm a pilot, a pilot")]))
    summary = run(settings)
    assert summary["failures"] == 0
    assert signals_by_user(conn) == {"ann": 2, "bob": 2}
    events = conn.execute("select action, count(*) from signals.events group by 1 order by 1").fetchall()
    assert events == [("create", 4)]  # the restatement cites the same message: nothing new to reinforce
    assert summary["actions"]["unchanged"] == 2
    before = conn.execute(
        "select signal_id, mention_count, updated_at from signals.signals order by 1"
    ).fetchall()
    rerun = run(settings)
    assert rerun["users"] == 0  # nothing new: no call, no write
    after = conn.execute(
        "select signal_id, mention_count, updated_at from signals.signals order by 1"
    ).fetchall()
    assert after == before


@pytest.mark.db
def test_a_frame_reaches_the_database_as_written(database_url, settings):
    """What the writer COPYs: an empty string stays empty (not null), quotes, commas, newlines and non-Latin
    text survive, and a time in another zone is the same instant."""
    import psycopg

    from agent_signals.store.shard_writer import copy_frame, frame

    berlin = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=timezone(timedelta(hours=1)))
    key, signal = str(uuid.uuid4()), uuid.uuid4()
    rows = [
        (key, str(signal), "", 'say "hi", then\nleave', "ключ ✓", berlin),
        (key, str(signal), "c2", "plain", "", berlin.astimezone(UTC)),
    ]
    table = "staging.apply_cited_evidence"
    columns = ("batch", "signal_id", "conversation_id", "message_id", "quote", "message_at")

    async def roundtrip() -> list[tuple]:
        async with (
            await psycopg.AsyncConnection.connect(database_url) as conn,
            conn.transaction(force_rollback=True),
        ):
            await copy_frame(
                conn, table, frame(table, [dict(zip(columns, row, strict=True)) for row in rows])
            )
            cur = await conn.execute(f"select * from {table} order by conversation_id")
            return await cur.fetchall()

    assert asyncio.run(roundtrip()) == [(uuid.UUID(key), signal, *row[2:]) for row in rows]


@pytest.mark.unit
def test_a_copy_row_names_exactly_its_tables_columns():
    """COPY rows are built by column name: a column left out or misspelt is an error, never a null."""
    from agent_signals.store.shard_writer import FRAMES, frame

    table = "staging.apply_cited_evidence"
    row = dict.fromkeys(FRAMES[table], None)
    assert frame(table, [row, row]).columns == list(FRAMES[table])
    for wrong in ({k: v for k, v in row.items() if k != "quote"}, {**row, "qoute": None}):
        with pytest.raises(ValueError, match="not"):
            frame(table, [row, wrong])
