"""Invariant 5: a run killed with SIGKILL mid-way is finished by the next run, with the same final signals
as an uninterrupted run (no duplicate, no lost signal, no double-counted mention)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.flows.extract import extract_signals
from tests.builders import conversation, kill_when, load_conversations

# prefect_api: the killed `agent-signals run` processes report to the harness's Prefect server
pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.slow, pytest.mark.usefixtures("prefect_api")]

USERS = 16
FINAL = """select user_id, content, tier, kind, status, mention_count, first_seen_at, last_seen_at
           from signals.signals order by user_id, content"""


def seed(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        load_conversations(
            conn,
            Settings(database_url=url),
            *(
                conversation(
                    f"c{i}",
                    f"u{i:02d}",
                    [
                        ("user", "I'm a staff data engineer. I own the billing-api service."),
                        ("assistant", "Got it."),
                        ("user", "I prefer short answers with bullet points."),
                        ("user", "I'm a staff data engineer, as I said."),
                    ],
                )
                for i in range(USERS)
            ),
        )


def run_on(url: str, **overrides) -> dict:
    """A manual run in this process on the database at `url`, with these settings overrides."""
    return asyncio.run(extract_signals(kind="manual", settings=Settings(database_url=url, **overrides)))


def reference_and_twin(new_database) -> tuple[str, str]:
    """Two databases seeded alike; the first has had one uninterrupted run (the reference)."""
    reference, twin = new_database(), new_database()
    seed(reference)
    seed(twin)
    run_on(reference)
    return reference, twin


def test_a_killed_run_is_finished_by_the_next_one(new_database):
    reference, crashed = reference_and_twin(new_database)

    env = {**os.environ, "DATABASE_URL": crashed, "AGENT_SIGNALS_OFFLINE_LATENCY_MS": "400",
           "AGENT_SIGNALS_CONCURRENCY": "1"}  # fmt: skip
    kill_when(["run"], env, crashed, "select count(*) from signals.watermarks", 3)

    with psycopg.connect(crashed, autocommit=True) as conn:
        done = conn.execute("select count(distinct user_id) from signals.watermarks").fetchone()[0]
        assert 3 <= done < USERS, "the kill must land mid-run"
        summary = run_on(crashed)
        assert summary["users"] == USERS - done  # only the unfinished users are called again
        statuses = [r[0] for r in conn.execute("select status from ops.runs order by started_at")]
        assert statuses == ["abandoned", "succeeded"]
        after_crash = conn.execute(FINAL).fetchall()
    with psycopg.connect(reference, autocommit=True) as conn:
        assert after_crash == conn.execute(FINAL).fetchall()


EVIDENCE = """select s.user_id, s.content, e.conversation_id, e.message_id, e.quote
              from signals.signals s join signals.evidence e using (signal_id) order by 1, 2, 3, 4"""
TRIALS = 20


def test_twenty_kills_at_random_points_end_as_one_uninterrupted_run(new_database):
    """SIGKILL lands during model calls, between users' writes, during summaries and the view refresh;
    every next run picks up what is left, and the end state equals that of one uninterrupted run."""
    import random

    reference, crashed = reference_and_twin(new_database)

    rng = random.Random(int(os.environ.get("AGENT_SIGNALS_CRASH_SEED", "20261122")))
    env = {**os.environ, "DATABASE_URL": crashed, "AGENT_SIGNALS_OFFLINE_LATENCY_MS": "200",
           "AGENT_SIGNALS_CONCURRENCY": "2", "AGENT_SIGNALS_SHARD_SIZE": "2"}  # fmt: skip
    committed = "select count(*) from signals.watermarks"
    killed_during = set()
    for _ in range(TRIALS):
        with psycopg.connect(crashed, autocommit=True) as conn:
            done = conn.execute(committed).fetchone()[0]
        if done < USERS:  # while users are pending: kill right after 1 to 3 more users commit
            kill_when(["run"], env, crashed, committed, min(done + rng.randint(1, 3), USERS))
        else:  # then at a random moment: booting, embedding, summaries, the view refresh, the checks
            proc = subprocess.Popen([sys.executable, "-m", "agent_signals", "run"], env=env,
                                    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            try:
                proc.wait(timeout=rng.uniform(2.0, 14.0))  # a run that ends before its moment is not killed
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        with psycopg.connect(crashed, autocommit=True) as conn:
            killed_during.add(conn.execute(committed).fetchone()[0])

    last = run_on(crashed)
    assert last["status"] == "succeeded"
    with (
        psycopg.connect(crashed, autocommit=True) as conn,
        psycopg.connect(reference, autocommit=True) as ref,
    ):
        assert conn.execute(FINAL).fetchall() == ref.execute(FINAL).fetchall()
        assert conn.execute(EVIDENCE).fetchall() == ref.execute(EVIDENCE).fetchall()
        runs = dict(conn.execute("select status, count(*) from ops.runs group by 1").fetchall())
        views = conn.execute("select count(*) from context.user_context").fetchone()[0]
        assert views == ref.execute("select count(*) from context.user_context").fetchone()[0]
    # some kills land before a run has even started (while Python and Prefect boot): those leave no row
    assert set(runs) <= {"abandoned", "succeeded"} and runs.get("abandoned", 0) >= 5
    assert len(killed_during) > 1, "every kill landed at the same point: widen the delays"


def test_connections_dropped_mid_run_fail_it_cleanly_and_the_next_run_finishes(new_database):
    """Every connection of the run is terminated by the server mid-run (as in a restart): users already
    committed stay, the ledger says what happened, and the next run does the rest."""
    from concurrent.futures import ThreadPoolExecutor

    reference, dropped = reference_and_twin(new_database)

    one_by_one = {"concurrency": 1, "shard_size": 2}
    with ThreadPoolExecutor(1) as pool, psycopg.connect(dropped, autocommit=True) as conn:
        running = pool.submit(run_on, dropped, **one_by_one, offline_latency_ms=300)
        deadline = time.monotonic() + 120
        while conn.execute("select count(distinct user_id) from signals.watermarks").fetchone()[0] < 3:
            assert not running.done() and time.monotonic() < deadline
            time.sleep(0.05)
        conn.execute(
            "select pg_terminate_backend(pid) from pg_stat_activity "
            "where datname = current_database() and pid <> pg_backend_pid()"
        )
        with pytest.raises(Exception):  # noqa: B017  (which error depends on where the drop lands)
            running.result(timeout=120)
        committed = conn.execute("select count(distinct user_id) from signals.watermarks").fetchone()[0]
        status, error = conn.execute("select status, error from ops.runs").fetchone()
    assert 3 <= committed < USERS
    assert status == "failed" and "connection" in error.lower()

    rest = run_on(dropped, **one_by_one)
    assert rest["status"] == "succeeded" and rest["users"] == USERS - committed
    with (
        psycopg.connect(dropped, autocommit=True) as conn,
        psycopg.connect(reference, autocommit=True) as ref,
    ):
        assert conn.execute(FINAL).fetchall() == ref.execute(FINAL).fetchall()
        assert conn.execute(EVIDENCE).fetchall() == ref.execute(EVIDENCE).fetchall()
