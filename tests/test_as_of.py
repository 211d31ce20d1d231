"""context.user_context_as_of (m021): a user's block as context.user_context rendered it at a past time,
rebuilt from signals.events. The strongest check runs the real pipeline through several steps (runs that
create, reinforce and update signals, the user's edit and delete, an archive by decay, a signal added by hand),
keeps the view's row after each step with the time, and asks the function for every one of those times at
the end. Then crafted events: the ranking at a past time follows the decay at that time, and merges and their
undo are replayed."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from psycopg.types.json import Jsonb

from agent_signals.adapters import dbt_views
from agent_signals.config import RunSettings, Settings
from agent_signals.core.decay import Decay
from agent_signals.flows.extract import extract_signals
from tests.builders import conversation, load_conversations
from tests.fakes import user_texts

AS_OF = "select * from context.user_context_as_of(%s, %s)"
VIEW = (
    "select context_markdown, manual_count, core_count, contextual_count from context.user_context"
    " where user_id = %s"
)
NOW = datetime.now(UTC).replace(microsecond=0)

# what the scripted model learns from a message: (text in the message, content, tier, kind, quote)
RULES = [
    ("I'm a pilot", "Works as a pilot", "core", "role", "I'm a pilot"),
    ("payments team", "Is on the payments team", "core", "team", "payments team"),
    ("short answers", "Prefers short answers", "contextual", "communication", "short answers"),
    ("Lisbon", "Lives in Lisbon", "contextual", "location", "Lisbon"),
    ("moving house", "Is moving house", "contextual", "personal", "moving house"),
]
MESSAGE = re.compile(r'<m id="(m\d+)"(?: date="[^"]*")?( old="true")?>(.*?)</m>', re.S)
KNOWN = re.compile(r"^(s\d+) \[[^\]]*\] (.*)$", re.M)


def answer(prompt) -> str:
    """Creates by RULES for each new message; "senior pilot" updates the known pilot signal."""
    text = user_texts(prompt)
    known = {content: handle for handle, content in KNOWN.findall(text)}
    actions = []
    for handle, old, body in MESSAGE.findall(text):
        if old:
            continue
        for needle, content, tier, kind, quote in RULES:
            if needle in body:
                actions.append({"action": "create", "content": content, "tier": tier, "kind": kind,
                                "evidence": [{"message": handle, "quote": quote}]})  # fmt: skip
        pilot = next((h for c, h in known.items() if "pilot" in c), None)
        if "senior pilot" in body and pilot:
            actions.append({"action": "update", "signal": pilot, "content": "Works as a senior pilot",
                            "tier": "core", "kind": "role",
                            "evidence": [{"message": handle, "quote": "senior pilot"}]})  # fmt: skip
    return json.dumps({"actions": actions})


def run(settings: Settings) -> dict:
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["failures"] == 0, summary
    return summary


def clock(conn: psycopg.Connection) -> datetime:
    return conn.execute("select clock_timestamp()").fetchone()[0]


def as_of(conn: psycopg.Connection, user_id: str, at: datetime) -> list[tuple]:
    return conn.execute(AS_OF, [user_id, at]).fetchall()


def signal_id(conn: psycopg.Connection, user_id: str, content: str) -> uuid.UUID:
    return conn.execute(
        "select signal_id from signals.signals where user_id = %s and content = %s and status = 'active'",
        [user_id, content],
    ).fetchone()[0]


# ---------------------------------------------------------------------------------------------------
# Against the real view, step by step


@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_the_block_at_each_past_step_is_the_view_s_row_at_that_step(conn, settings_with, scripted):
    settings = settings_with()
    scripted.script = answer
    steps: list[tuple[str, datetime, tuple]] = []

    def snapshot(name: str) -> None:
        (row,) = conn.execute(VIEW, ["ann"]).fetchall()
        steps.append((name, clock(conn), row))

    load_conversations(
        conn,
        settings,
        conversation("c-old", "ann", [("user", "Please keep short answers")], start=NOW - timedelta(days=40)),
        conversation("c-older", "ann", [("user", "We are moving house")], start=NOW - timedelta(days=60)),
        conversation(
            "c-1",
            "ann",
            [("user", "I'm a pilot"), ("user", "I'm on the payments team"), ("user", "I live in Lisbon")],
        ),
    )
    before_everything = clock(conn)

    # 1. a run creates five signals: Lisbon (5 days old) ranks above short answers (40) and moving (60)
    assert run(settings)["actions"]["created"] == 5
    snapshot("created")
    assert steps[-1][2][0].endswith("- Lives in Lisbon\n- Prefers short answers\n- Is moving house")

    # 2. a later run reinforces short answers (now first of the recent context) and updates the pilot
    load_conversations(
        conn,
        settings,
        conversation(
            "c-2",
            "ann",
            [("user", "Again: short answers"), ("user", "I'm now a senior pilot")],
            start=NOW - timedelta(days=1),
        ),
    )
    summary = run(settings)
    assert summary["actions"]["reinforced"] == 1 and summary["actions"]["updated"] == 1
    snapshot("reinforced and updated")
    assert "- Works as a senior pilot" in steps[-1][2][0]
    assert steps[-1][2][0].endswith("- Prefers short answers\n- Lives in Lisbon\n- Is moving house")

    # 3. the user edits the team signal (it becomes their own) and deletes Lisbon; the views follow
    conn.execute(
        "select signals.edit_signal('ann', %s, 'Leads the payments team')",
        [signal_id(conn, "ann", "Is on the payments team")],
    )
    conn.execute("select signals.delete_signal('ann', %s)", [signal_id(conn, "ann", "Lives in Lisbon")])
    dbt_views.refresh_users(settings, ["ann"])
    snapshot("edited and deleted")
    assert steps[-1][2][1:] == (1, 1, 2)

    # 4. with faster decay, the next run (bob has something new) archives moving house (60 days, 1 mention)
    load_conversations(conn, settings, conversation("c-bob", "bob", [("user", "I'm a pilot")]))
    summary = run(settings_with(decay_base_days=15))
    assert summary["actions"]["created"] == 1
    assert conn.execute(
        "select status from signals.signals where user_id = 'ann' and content = 'Is moving house'"
    ).fetchone() == ("archived",)
    snapshot("archived")
    assert steps[-1][2][1:] == (1, 1, 1)

    # 5. the user adds a signal of their own
    conn.execute("select signals.add_signal('ann', 'Prefers British spelling', 'preference')")
    dbt_views.refresh_users(settings, ["ann"])
    snapshot("added by hand")
    assert steps[-1][2][1:] == (2, 1, 1)

    # every step's block differs from the last one: a function that read the signals as they are now (not
    # the events) would answer the last block at every time
    assert len({row for _name, _at, row in steps}) == len(steps)
    for name, at, row in steps:
        assert as_of(conn, "ann", at) == [row], name
    assert as_of(conn, "ann", before_everything) == []  # before the user's first event: no row
    assert as_of(conn, "nobody", clock(conn)) == []
    # a time between two steps is the earlier step's block
    (_n1, at1, row1), (_n2, at2, _row2) = steps[0], steps[1]
    assert as_of(conn, "ann", at1 + (at2 - at1) / 10) == [row1]


# ---------------------------------------------------------------------------------------------------
# Crafted events


def snapshot_of(signal: uuid.UUID, content: str, *, tier: str = "contextual", origin: str = "inferred",
                status: str = "active", mentions: int = 1, last_seen: datetime, created: datetime) -> dict:  # fmt: skip
    return {
        "signal_id": str(signal), "user_id": "rk", "content": content, "tier": tier, "origin": origin,
        "status": status, "mention_count": mentions, "last_seen_at": last_seen.isoformat(),
        "first_seen_at": last_seen.isoformat(), "created_at": created.isoformat(), "decay_score": 1.0,
    }  # fmt: skip


def event(conn: psycopg.Connection, signal: uuid.UUID, action: str, at: datetime, after, before=None) -> int:
    return conn.execute(
        """insert into signals.events (signal_id, user_id, action, actor, before, after, at)
           values (%s, 'rk', %s, 'pipeline', %s, %s, %s) returning event_id""",
        [signal, action, None if before is None else Jsonb(before), Jsonb(after), at],
    ).fetchone()[0]


DAY0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.db
def test_the_ranking_at_a_past_time_follows_the_decay_at_that_time(conn):
    """A (one mention, seen on day 0) and B (three mentions, seen ten days earlier): A decays faster. On day
    1 A is stronger (age 1 / 1 against 11 / 2), on day 100 B is (100 / 1 against 110 / 2); without the
    mention boost A, the more recent, is always first."""
    a, b = uuid.uuid4(), uuid.uuid4()
    event(conn, a, "create", DAY0, snapshot_of(a, "Signal A", last_seen=DAY0, created=DAY0))
    event(conn, b, "create", DAY0,
          snapshot_of(b, "Signal B", mentions=3, last_seen=DAY0 - timedelta(days=10), created=DAY0))  # fmt: skip
    day1, day100 = DAY0 + timedelta(days=1), DAY0 + timedelta(days=100)
    assert as_of(conn, "rk", day1) == [
        ("## About this user\n### Recent context\n- Signal A\n- Signal B", 0, 0, 2)
    ]
    assert as_of(conn, "rk", day100) == [
        ("## About this user\n### Recent context\n- Signal B\n- Signal A", 0, 0, 2)
    ]
    no_boost = "select context_markdown from context.user_context_as_of(%s, %s, mention_boost => 0)"
    assert conn.execute(no_boost, ["rk", day100]).fetchone()[0].endswith("- Signal A\n- Signal B")


@pytest.mark.db
def test_a_merge_and_its_undo_are_replayed_and_the_buckets_keep_their_limits(conn):
    survivor, absorbed, own = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    s_before = snapshot_of(survivor, "Works on billing", tier="core", last_seen=DAY0, created=DAY0)
    x_before = snapshot_of(
        absorbed, "Works on invoices", tier="core", last_seen=DAY0 - timedelta(days=1), created=DAY0
    )
    event(conn, survivor, "create", DAY0, s_before)
    event(conn, absorbed, "create", DAY0, x_before)
    event(conn, own, "create", DAY0,
          snapshot_of(own, "Prefers   tea\nin the morning", tier="core", origin="manual", last_seen=DAY0,
                      created=DAY0))  # fmt: skip
    merged_at, undone_at = DAY0 + timedelta(days=1), DAY0 + timedelta(days=2)
    s_after = {**s_before, "content": "Works on billing and invoices", "mention_count": 2}
    merge = event(conn, survivor, "merge", merged_at,
                  {"survivor": s_after, "absorbed": [str(absorbed)], "copied": []},
                  {"survivor": s_before, "absorbed": [x_before]})  # fmt: skip
    event(conn, survivor, "undo", undone_at, {"undoes": merge, "signal": s_before})
    own_block = (
        "## About this user\n### Confirmed by the user\n- Prefers tea in the morning\n### Core identity\n"
    )
    assert as_of(conn, "rk", DAY0) == [(own_block + "- Works on billing\n- Works on invoices", 1, 2, 0)]
    assert as_of(conn, "rk", merged_at) == [(own_block + "- Works on billing and invoices", 1, 1, 0)]
    assert as_of(conn, "rk", undone_at) == [(own_block + "- Works on billing\n- Works on invoices", 1, 2, 0)]

    # the core bucket holds signals.limit('core_cap'), the contextual one signals.limit('contextual_limit')
    core_cap, contextual_limit = (conn.execute("select signals.limit(%s)", [n]).fetchone()[0]
                                  for n in ("core_cap", "contextual_limit"))  # fmt: skip
    for i in range(core_cap + 3):
        s = uuid.uuid4()
        event(conn, s, "create", DAY0, snapshot_of(s, f"core {i}", tier="core", last_seen=DAY0, created=DAY0))
    for i in range(contextual_limit + 3):
        s = uuid.uuid4()
        event(conn, s, "create", DAY0, snapshot_of(s, f"context {i}", last_seen=DAY0, created=DAY0))
    assert as_of(conn, "rk", undone_at)[0][1:] == (1, core_cap, contextual_limit)


@pytest.mark.db
def test_a_user_with_nothing_active_has_the_empty_block_and_the_default_boost_is_the_configured_one(conn):
    gone = uuid.uuid4()
    event(conn, gone, "create", DAY0, snapshot_of(gone, "Gone soon", last_seen=DAY0, created=DAY0))
    event(conn, gone, "delete", DAY0 + timedelta(days=1),
          snapshot_of(gone, "Gone soon", status="deleted", last_seen=DAY0, created=DAY0))  # fmt: skip
    assert as_of(conn, "rk", DAY0 - timedelta(seconds=1)) == []
    assert as_of(conn, "rk", DAY0 + timedelta(days=1)) == [("## About this user", 0, 0, 0)]
    # a null mention_boost is signals.retention's default, which is the configuration's default
    fields = RunSettings.model_fields
    decay = Decay(fields["decay_base_days"].default, fields["decay_mention_boost"].default, 0.05)
    at = DAY0 + timedelta(days=10)
    stored = conn.execute("select signals.retention(%s, 3, %s)", [DAY0, at]).fetchone()[0]
    assert stored == pytest.approx(decay.retention_at(DAY0, 3, at), rel=1e-12)


@pytest.mark.db
def test_analysts_and_the_app_call_it_without_reading_the_events(conn):
    kept = uuid.uuid4()
    event(conn, kept, "create", DAY0, snapshot_of(kept, "Kept", last_seen=DAY0, created=DAY0))
    expected = [("## About this user\n### Recent context\n- Kept", 0, 0, 1)]
    for role in ("agent_signals_analyst", "agent_signals_app"):
        conn.execute(f"set role {role}")
        try:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("select count(*) from signals.events")
            named = "select * from context.user_context_as_of(user_id => %s, at => %s)"
            assert conn.execute(named, ["rk", DAY0]).fetchall() == expected
        finally:
            conn.execute("reset role")
