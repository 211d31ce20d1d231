"""Runs that something stops mid-shard, end to end with real processes and a model over HTTP (issue 33): every
answered call is in the run's row however the run ends (interrupted, killed, its database gone), a user cut
off by the stop is no failure, and a run whose database dies ends at once, `failed`, with the right message,
and the next run does the rest. Each stop lands at a known point, never on a timer: a write the test holds
behind a table lock, or the model's answer that kills the database before it is sent."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.store import database
from agent_signals.store.ledger import runs
from agent_signals.store.schema.migrate import migrate
from tests import http_model
from tests.builders import conversation, load_conversations

SLOW = (pytest.mark.db, pytest.mark.flow, pytest.mark.slow)

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "agent_signals"]
PROMPT_TOKENS, COMPLETION_TOKENS = 100, 7
NOTHING = http_model.chat('{"actions": []}', PROMPT_TOKENS, COMPLETION_TOKENS)  # nothing learned: a cheap run
ONE_BY_ONE = {
    "AGENT_SIGNALS_SHARDS": "1",
    "AGENT_SIGNALS_SHARDS_IN_FLIGHT": "1",
    "AGENT_SIGNALS_CONCURRENCY": "1",
}
ROW = """select status, error, users, failures, llm_calls, prompt_tokens, completion_tokens
         from ops.runs order by started_at desc limit 1"""


def seed(url: str, users: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        load_conversations(conn, Settings(database_url=url), *(
            conversation(f"c{i}", f"u{i:02d}", [("user", f"I'm user {i} and I like tea.")]) for i in range(users)
        ))  # fmt: skip


def environment(model: http_model.HttpModel, api: str, **settings: str) -> dict:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENT_SIGNALS_", "DATABASE_URL"))
    }
    return env | model.env() | {"PREFECT_API_URL": api, **ONE_BY_ONE, **settings}


def chat_requests(model: http_model.HttpModel) -> int:
    return sum(1 for path, _body in model.requests if path.endswith("/chat/completions"))


def wait_until(condition, proc: subprocess.Popen, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds  # a liveness bound, not a speed figure
    while not condition():
        assert proc.poll() is None, f"the run ended before {what}: {proc.communicate()[1][-3000:]}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.05)


WAITING_WRITE = """select count(*) from pg_stat_activity
                   where application_name like 'agent-signals run %%' and wait_event_type = 'Lock'"""
RECORDED_CALLS = "select coalesce(sum(calls), 0) from ops.run_calls"


def slow(test):
    for mark in SLOW:
        test = mark(test)
    return test


@slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_every_answered_call_is_in_the_row_of_a_run_stopped_mid_shard(database_url, prefect_api, signum):
    """The first shard's three users are answered, then its write waits behind a lock the test holds: the
    run is stopped there. Its row counts the three calls, and the users cut off are not failures."""
    seed(database_url, 6)
    with (
        http_model.serve(lambda _path, _body: NOTHING) as model,
        psycopg.connect(database_url) as holder,
        psycopg.connect(database_url, autocommit=True) as conn,
    ):
        holder.execute("lock table signals.watermarks in exclusive mode")  # reads pass, the writes wait
        env = environment(model, prefect_api, AGENT_SIGNALS_SHARD_SIZE="3", DATABASE_URL=database_url)
        proc = subprocess.Popen([*CLI, "run"], env=env, cwd=ROOT, start_new_session=True, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        try:
            wait_until(
                lambda: conn.execute(WAITING_WRITE).fetchone()[0] > 0, proc, "the shard's write waited"
            )
            answered = chat_requests(model)
            assert answered == 3
            # recorded as each answer came back, though no shard has ended
            assert conn.execute(RECORDED_CALLS).fetchone()[0] == answered
            os.killpg(proc.pid, signum)
            _stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            holder.rollback()
        if signum == signal.SIGKILL:
            assert abandoned(database_url)
        status, error, users, failures, calls, prompt_tokens, completion_tokens = conn.execute(ROW).fetchone()
        failure_rows = conn.execute("select count(*) from ops.failures").fetchone()[0]
    assert proc.returncode == (143 if signum == signal.SIGTERM else -signal.SIGKILL)
    assert status == ("interrupted" if signum == signal.SIGTERM else "abandoned"), error
    assert (calls, prompt_tokens, completion_tokens) == (3, 3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert failures == failure_rows == 0 and users == 0  # cut off, still pending: not failed
    if signum == signal.SIGTERM:
        assert "interrupted: 0 user(s) committed" in stderr and "Traceback" not in stderr


def abandoned(url: str) -> bool:
    """What the next run does first: mark the dead run abandoned (once PostgreSQL has seen its process go)."""

    async def abandon() -> list:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            return await runs.abandon_dead_runs(conn)

    deadline = time.monotonic() + 60
    while not asyncio.run(abandon()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def own_server(tmp_path):
    """An embedded PostgreSQL of the test's own (its data folder under tmp_path), migrated: a test may kill
    it without touching the others' server. Stopped after the test."""
    import pgserver

    settings = Settings(data_dir=tmp_path / "data", database_url=None)
    url = database.database_url(settings)  # starts it
    with psycopg.connect(url, autocommit=True) as conn:
        migrate(conn, settings)
    server = pgserver.get_server(settings.database.data_dir / "pgdata", cleanup_mode=None)
    yield settings, server
    pgserver.pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user)


@slow
def test_a_run_whose_database_dies_mid_shard_ends_failed_at_once_and_the_next_run_finishes(
    own_server, prefect_api
):
    """Eight users in two shards of four, one at a time; the model's answer to the fifth user (the second
    shard's first) kills the embedded server before it is sent. The run stops there: no user after it is
    started, nobody's failure is recorded or waited for, and its one reconnect (which starts the embedded
    server again, as every command does) writes its row: `failed`, every answered call counted."""
    import pgserver

    settings, server = own_server
    seed(database.database_url(settings), 8)
    lock = threading.Lock()

    def respond(_path: str, _body: dict) -> tuple[int, dict]:
        with lock:
            if chat_requests(model) == 5:
                pgserver.pg_ctl(
                    ["-w", "stop", "-m", "immediate"], pgdata=server.pgdata, user=server.system_user
                )
        return NOTHING

    with http_model.serve(respond) as model:
        env = environment(model, prefect_api, AGENT_SIGNALS_SHARD_SIZE="4",
                          AGENT_SIGNALS_DATA_DIR=str(settings.database.data_dir))  # fmt: skip
        started = time.monotonic()
        done = subprocess.run([*CLI, "run"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
        seconds = time.monotonic() - started
        answered = chat_requests(model)
    print(f"run with its database killed mid-shard: ended in {seconds:.1f}s")  # shown with -s

    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith(("error:", "hint:"))]
    assert len(errors) == 2 and "lost its database connection" in errors[0], done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "could not record the failure" not in done.stderr
    assert answered == 5  # nobody after the fifth user was asked
    with psycopg.connect(
        database.database_url(settings), autocommit=True
    ) as conn:  # the run started it again
        status, error, _users, failures, calls, prompt_tokens, _c = conn.execute(ROW).fetchone()
        failure_rows = conn.execute("select count(*) from ops.failures").fetchone()[0]
        committed = conn.execute("select count(distinct user_id) from signals.watermarks").fetchone()[0]
    assert status == "failed" and error.startswith("database connection lost: "), error
    assert (calls, prompt_tokens) == (answered, answered * PROMPT_TOKENS)
    assert failures == failure_rows == 0
    assert committed == 4  # the first shard's

    with http_model.serve(lambda _path, _body: NOTHING) as model:
        rest = subprocess.run([*CLI, "run"], env=environment(model, prefect_api, AGENT_SIGNALS_DATA_DIR=str(
            settings.database.data_dir)), cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert rest.returncode == 0, rest.stderr[-3000:]
    with psycopg.connect(database.database_url(settings), autocommit=True) as conn:
        assert conn.execute(ROW).fetchone()[:3] == ("succeeded", None, 4)
        assert conn.execute("select count(distinct user_id) from signals.watermarks").fetchone()[0] == 8


@pytest.mark.unit
def test_interrupted_lines_say_what_was_finished():
    """What an interrupted run prints (stages/interrupts.line), for each case."""
    from agent_signals.stages.run.interrupts import line

    base = {"run_id": "r1", "kind": "manual", "users": 3}
    assert line(None) == "interrupted: nothing was written"
    assert line(base) == "interrupted: 3 user(s) committed by run r1, the next run finishes the rest"
    backfill = base | {"kind": "backfill", "users": 537, "finished": {"slices": 6, "changed": 12}}
    assert line(backfill) == (
        "interrupted: backfill run r1 finished 6 slice(s) and 537 user(s), 525 of them with nothing new; the "
        "same backfill again skips the finished slices"
    )
    assert line(base | {"unrecorded": "connection refused"}) == (
        "interrupted: run r1 could not record what it committed (connection refused); the next run marks it "
        "abandoned and finishes the rest"
    )
    assert json.dumps(backfill)  # a summary stays JSON
