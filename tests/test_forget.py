"""`agent-signals forget` end to end, through the command line in real processes: what was forgotten is not
learned again from the messages older than the forget, by a run or a backfill that ignores watermarks, nor
shown by a replay; what the user says afterwards is learned afresh; a "no" at the prompt does nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent_signals.stages.by_hand import own_signals
from tests.builders import conversation

ROOT = Path(__file__).resolve().parents[1]


def agent_signals(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_signals", *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=ROOT,
        timeout=300,
    )


def load(tmp_path: Path, name: str, *conversations: dict) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"conversations": list(conversations)}))
    loaded = agent_signals("load", str(path))
    assert loaded.returncode == 0, loaded.stderr[-2000:]


def contents(conn, user_id: str) -> set[str]:
    rows = conn.execute(
        "select content from signals.signals where user_id = %s and status = 'active'", [user_id]
    ).fetchall()
    return {content for (content,) in rows}


def last_run(conn, kind: str) -> tuple[str, int]:
    return conn.execute(
        "select status, llm_calls from ops.runs where kind = %s order by started_at desc limit 1", [kind]
    ).fetchone()


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_api")
def test_forgetting_holds_against_runs_backfills_and_replays(database_url, conn, tmp_path):
    old = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=3)
    load(
        tmp_path, "history",
        conversation("f1", "fay", [("user", "I live in Porto.")], start=old),
        conversation("f2", "fay", [("user", "I'm a data engineer.")], start=old + timedelta(hours=1)),
        conversation("g1", "gus", [("user", "I live in Lisbon.")], start=old),
    )  # fmt: skip
    first = agent_signals("run")
    assert first.returncode == 0, first.stderr[-2000:]
    assert "Lives in Porto" in contents(conn, "fay") and contents(conn, "gus") == {"Lives in Lisbon"}

    forgot = agent_signals("forget", "--user", "fay", "--yes")
    assert forgot.returncode == 0 and forgot.stdout.startswith("forgot fay: 2 signal(s)"), forgot.stderr
    assert contents(conn, "fay") == set()

    # a backfill over fay's old window ignores watermarks: it re-reads gus, never fay's forgotten messages
    since, until = (
        (old - timedelta(days=1)).strftime("%Y-%m-%d"),
        (old + timedelta(days=1)).strftime("%Y-%m-%d"),
    )
    backfill = agent_signals("backfill", "--since", since, "--until", until)
    assert backfill.returncode == 0, backfill.stderr[-2000:]
    assert contents(conn, "fay") == set() and contents(conn, "gus") == {"Lives in Lisbon"}
    assert last_run(conn, "backfill") == ("succeeded", 1)  # gus's call only: none for fay's old messages
    replay = agent_signals(
        "replay", "--prompt-version", "v2", "--since", since, "--until", until, "--user", "fay"
    )
    assert replay.returncode == 1 and "error: no flagged user messages between" in replay.stderr

    # fay comes back and says something new: learned afresh, and only that
    forgotten_at = conn.execute("select max(at) from ops.forgotten where user_id = 'fay'").fetchone()[0]
    load(tmp_path, "later",
         conversation("f3", "fay", [("user", "I'm on the payments team.")], start=forgotten_at + timedelta(milliseconds=1)))  # fmt: skip
    again = agent_signals("run")
    assert again.returncode == 0, again.stderr[-2000:]
    assert contents(conn, "fay") == {"Is on the payments team"}
    assert last_run(conn, "manual") == ("succeeded", 1)


@pytest.mark.db
@pytest.mark.parametrize("answer", ["n\n", "\n", None], ids=["no", "empty answer", "no input"])
def test_a_no_at_the_forget_prompt_does_nothing_and_says_so(database_url, conn, settings, answer):
    own_signals.add_signal(conn, settings, "fay", "Prefers tea", "preference")
    result = agent_signals("forget", "--user", "fay", stdin=answer)
    assert result.returncode == 130
    assert "Forget everything derived about fay? [y/N]" in result.stdout
    assert result.stderr.splitlines() == ["nothing was done: user fay was not forgotten"]
    assert contents(conn, "fay") == {"Prefers tea"}
    assert conn.execute("select count(*) from ops.forgotten").fetchone()[0] == 0


@pytest.mark.db
def test_the_scan_and_the_load_skip_what_precedes_the_latest_forget(conn, settings, database_url):
    """The twin queries agree; a user forgotten twice is read only from the later forget on."""
    import asyncio

    import psycopg

    from agent_signals.store.source import Window, load_shard, pending_users
    from tests.builders import load_conversations

    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(days=6)
    load_conversations(conn, settings,
                       conversation("f1", "fay", [("user", "I live in Porto.")], start=t0),
                       conversation("f2", "fay", [("user", "I'm a data engineer.")], start=t0 + timedelta(days=2)),
                       conversation("f3", "fay", [("user", "I'm on the payments team.")], start=t0 + timedelta(days=4)),
                       conversation("g1", "gus", [("user", "I live in Lisbon.")], start=t0))  # fmt: skip

    async def read() -> tuple[dict[str, int], dict[str, list[str]]]:
        window = Window(until=datetime.now(UTC), ignore_watermarks=True)
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as aconn:
            pending = await pending_users(aconn, window)
            batches = (
                await load_shard(aconn, settings, [p.user_id for p in pending], window)
            ).user_messages()
        return ({p.user_id: p.messages for p in pending},
                {b.user_id: [m.conversation_id for m in b.messages] for b in batches})  # fmt: skip

    assert asyncio.run(read()) == ({"fay": 3, "gus": 1}, {"fay": ["f1", "f2", "f3"], "gus": ["g1"]})
    forget = "insert into ops.forgotten (user_id, signals, at) values ('fay', 0, %s)"
    conn.execute(forget, [t0 + timedelta(days=3)])
    conn.execute(forget, [t0 + timedelta(days=1)])  # recorded later, but an earlier moment: the latest counts
    assert asyncio.run(read()) == ({"fay": 1, "gus": 1}, {"fay": ["f3"], "gus": ["g1"]})
    conn.execute(forget, [t0 + timedelta(days=4, seconds=30)])
    assert asyncio.run(read()) == ({"gus": 1}, {"gus": ["g1"]})
