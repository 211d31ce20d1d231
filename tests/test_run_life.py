"""How `agent-signals run` ends, end to end with real processes: a misconfigured model stops the run at its
first request (failed, one `error:` line and a hint, non-zero exit), a run in which every user failed exits
non-zero, SIGINT and SIGTERM stop a run within seconds with an honest `interrupted` ledger row that the next
run finishes, and a run with nothing to do is recorded without starting Prefect.

The runs that end by themselves on an error (every user failed), by a signal, or with nothing to do run as a
user without PREFECT_API_URL runs them: with Prefect's temporary server in the process group, under a new
PREFECT_HOME. The others (a misconfigured model, a missing key, the reference and finishing runs) report to
the harness's Prefect server (`prefect_api`): what they test does not depend on where Prefect runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests import http_model
from tests.imports import BANNERS, traced

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "agent_signals"]


def cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


def base_env(url: str, tmp_path: Path, *, api: str | None = None, **extra: str) -> dict:
    """An `agent-signals` process's environment: Prefect's temporary server under a new PREFECT_HOME, or the
    Prefect API `api` when one is given."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENT_SIGNALS_", "PREFECT_API"))
    }
    env |= {"DATABASE_URL": url, "PREFECT_HOME": str(tmp_path / "prefect"), **extra}
    return env | ({"PREFECT_API_URL": api} if api else {})


def seed(url: str, tmp_path: Path, users: int) -> None:
    result = cli("demo", "seed", "--users", str(users), env=base_env(url, tmp_path))
    assert result.returncode == 0, result.stderr


def last_run(url: str) -> tuple:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "select run_id, status, users, actions, error, flow_run_id from ops.runs order by started_at desc limit 1"
        ).fetchone()


def assert_one_error_line(stderr: str, *words: str) -> None:
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    hints = [line for line in stderr.splitlines() if line.startswith("hint:")]
    assert len(errors) == 1 and len(hints) == 1, stderr
    assert all(word in errors[0] + hints[0] for word in words), (errors, hints)
    assert "Traceback" not in stderr
    assert not any(banner in stderr for banner in BANNERS), stderr


MISCONFIGURED = {
    "401": (http_model.UNAUTHORIZED, ["authentication", "API key"]),
    "403": (http_model.FORBIDDEN, ["permission", "AGENT_SIGNALS_MODEL"]),
    "404": (http_model.MODEL_NOT_FOUND, ["not found", "AGENT_SIGNALS_MODEL"]),
    "400": (http_model.BAD_REQUEST, ["bad request", "AGENT_SIGNALS_MODEL"]),
}


@pytest.mark.parametrize("status", sorted(MISCONFIGURED))
def test_a_misconfigured_model_stops_the_run_at_its_first_request(
    database_url, tmp_path, prefect_api, status
):
    answer, words = MISCONFIGURED[status]
    seed(database_url, tmp_path, 6)
    with http_model.serve(lambda _path, _body: answer) as model:
        env = base_env(database_url, tmp_path, api=prefect_api, **model.env(), AGENT_SIGNALS_MAX_RETRIES="3",
                       AGENT_SIGNALS_RETRY_BACKOFF_S="0")  # fmt: skip
        result = cli("run", env=env)
    assert len(model.requests) == 1, "no retry, no other user: one request per misconfiguration"
    assert result.returncode == 2  # a configuration error, as a wrong argument
    assert_one_error_line(result.stderr, *words)
    _run_id, status_, users, _actions, error, _flow = last_run(database_url)
    assert status_ == "failed" and users == 0 and words[0] in error
    with psycopg.connect(database_url, autocommit=True) as conn:  # every user still pending, none blamed
        assert conn.execute("select count(*) from signals.watermarks").fetchone()[0] == 0
        assert conn.execute("select count(*) from ops.failures").fetchone()[0] == 0


@pytest.mark.parametrize("key", ["unset", "empty"])
@pytest.mark.parametrize("users", [0, 3], ids=["idle", "with-work"])
def test_a_missing_key_stops_the_run_as_its_settings_load(database_url, tmp_path, key, users):
    """Issue 33: an empty key passed the check, and a run with nothing to do succeeded with no key at all.
    The key is checked with the settings, before the idle check, Prefect or any request: no row is written."""
    if users:
        seed(database_url, tmp_path, users)
    with http_model.serve(lambda _path, _body: http_model.chat("{}")) as model:
        env = base_env(database_url, tmp_path, **model.env())
        if key == "unset":
            del env["OPENAI_API_KEY"]
        else:
            env["OPENAI_API_KEY"] = ""
        result = cli("run", env=env)
    assert model.requests == []
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "OPENAI_API_KEY", "set OPENAI_API_KEY", "AGENT_SIGNALS_MODEL")
    assert ("not set" if key == "unset" else "set but empty") in result.stderr
    assert last_run(database_url) is None and not (tmp_path / "prefect").exists()


def test_a_run_in_which_every_user_failed_exits_non_zero(database_url, tmp_path, prefect_api):
    seed(database_url, tmp_path, 3)
    with http_model.serve(lambda _path, _body: http_model.SERVER_ERROR) as model:
        # the harness's Prefect API: a temporary server of the process's own once logged a traceback of its
        # database pool while it shut down, under a loaded machine (Prefect's, not the run's)
        env = base_env(database_url, tmp_path, api=prefect_api, **model.env(), AGENT_SIGNALS_MAX_RETRIES="0")
        result = cli("run", env=env)
    assert len(model.requests) == 3  # a transient fault is one user's: every user was tried
    assert result.returncode == 1
    assert_one_error_line(result.stderr, "all 3 user(s)", "ops.failures")
    _run_id, status, users, *_ = last_run(database_url)
    assert (status, users) == ("partial", 3)  # the run itself went through: its failures are recorded


SIGNALS = """select user_id, content, tier, kind, mention_count, first_seen_at, last_seen_at
             from signals.signals where status = 'active' order by user_id, content"""
COMMITTED = """select count(distinct user_id), count(*) filter (where action = 'create')
               from signals.events where run_id = %(run_id)s"""
COMMITTED_USERS = """select count(*) from (select user_id from signals.events where run_id = %(run_id)s
                     union select user_id from signals.watermarks where run_id = %(run_id)s) u"""
USERS = 40


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_stops_at_once_says_what_it_committed_and_the_next_run_finishes(
    new_database, tmp_path, prefect_api, signum
):
    reference, interrupted = new_database(), new_database()
    for url in (reference, interrupted):
        seed(url, tmp_path, USERS)
    assert cli("run", env=base_env(reference, tmp_path, api=prefect_api)).returncode == 0
    pending = last_run(reference)[2]  # the demo's users with flagged conversations

    env = base_env(
        interrupted, tmp_path, AGENT_SIGNALS_OFFLINE_LATENCY_MS="200", AGENT_SIGNALS_CONCURRENCY="2"
    )
    proc = subprocess.Popen([*CLI, "run"], env=env, cwd=ROOT, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        with psycopg.connect(interrupted, autocommit=True) as conn:
            deadline = time.monotonic() + 300
            while conn.execute("select count(*) from signals.events").fetchone()[0] < 3:
                assert proc.poll() is None, "the run ended before it could be interrupted"
                assert time.monotonic() < deadline, "the run never committed anything"
                time.sleep(0.05)
        os.killpg(proc.pid, signum)  # as Ctrl-C does: the whole process group, Prefect's server included
        stdout, stderr = proc.communicate(timeout=30)  # a liveness bound, not a speed figure
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    assert proc.returncode == 128 + signum
    assert "Traceback" not in stdout + stderr
    assert len([line for line in stderr.splitlines() if line.startswith("interrupted:")]) == 1, stderr
    run_id, status, users, actions, error, _flow = last_run(interrupted)
    assert status == "interrupted" and signal.Signals(signum).name in error
    with psycopg.connect(interrupted, autocommit=True) as conn:
        event_users, created = conn.execute(COMMITTED, {"run_id": run_id}).fetchone()
        assert users == conn.execute(COMMITTED_USERS, {"run_id": run_id}).fetchone()[0] >= event_users
        assert actions.get("created", 0) == created > 0
        assert 0 < users < pending, "the interrupt must land mid-run"
        assert f"{users} user(s) committed" in stderr

    finished = cli("run", env=base_env(interrupted, tmp_path, api=prefect_api))
    assert finished.returncode == 0, finished.stderr
    assert last_run(interrupted)[1:3] == ("succeeded", pending - users)
    with psycopg.connect(interrupted, autocommit=True) as conn, psycopg.connect(reference) as ref:
        assert conn.execute(SIGNALS).fetchall() == ref.execute(SIGNALS).fetchall()


def test_a_run_with_nothing_to_do_is_recorded_without_starting_prefect(database_url, tmp_path):
    env = base_env(database_url, tmp_path)
    idle = cli("run", env=env)
    assert idle.returncode == 0, idle.stderr
    _run_id, status, users, actions, _error, flow_run_id = last_run(database_url)
    assert (status, users, actions, flow_run_id) == ("succeeded", 0, {}, None)
    assert "succeeded" in idle.stdout and not (tmp_path / "prefect").exists()

    seed(database_url, tmp_path, 2)  # work to do: the full flow runs
    busy = cli("run", env=env)
    assert busy.returncode == 0, busy.stderr
    _run_id, status, users, _actions, _error, flow_run_id = last_run(database_url)
    assert (status, users) == ("succeeded", 2) and flow_run_id is not None
    assert (tmp_path / "prefect").exists()


def test_a_run_with_nothing_to_do_imports_neither_prefect_nor_litellm(database_url, tmp_path):
    """Issue 33: the idle check imported litellm (3.3 s of imports) and printed its provider-list banner twice.
    The idle run asks no model, so it records no answer mode."""
    idle = traced("run", env=base_env(database_url, tmp_path))
    assert idle.returncode == 0, idle.stderr
    assert "succeeded" in idle.stdout and "answers as" not in idle.stdout
    assert not idle.heavy
    assert not any(banner in idle.stdout + idle.stderr for banner in BANNERS)
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("select status, answer_mode, flow_run_id from ops.runs").fetchall()
    assert row == [("succeeded", None, None)]


def test_an_interrupted_backfill_says_which_slices_and_users_it_finished(database_url, tmp_path, prefect_api):
    """A backfill over history a run already read finds nothing new: interrupted in its third slice, it says
    it finished two slices and four users, all with nothing new (not `0 user(s) committed`), and the same
    backfill again skips those slices."""
    import threading
    from datetime import timedelta

    from agent_signals.config import Settings
    from tests.builders import T0, conversation, load_conversations

    with psycopg.connect(database_url, autocommit=True) as conn:
        load_conversations(conn, Settings(database_url=database_url), *(
            conversation(f"{user}-{day}", user, [("user", f"I live in Lisbon, day {day}.")],
                         start=T0 + timedelta(days=day))
            for user in ("ann", "bob", "cy", "dee") for day in range(3)
        ))  # fmt: skip
    held, release, armed = threading.Event(), threading.Event(), threading.Event()
    lock = threading.Lock()

    def respond(_path: str, _body: dict) -> tuple[int, dict]:
        with lock:
            asked = sum(1 for path, _b in model.requests if path.endswith("/chat/completions"))
        if armed.is_set() and asked - before == 9:  # the third slice's first user: two slices are done
            held.set()
            release.wait()
        return http_model.chat('{"actions": []}')

    window = ["--since", T0.strftime("%Y-%m-%d"), "--until", (T0 + timedelta(days=3)).strftime("%Y-%m-%d")]
    with http_model.serve(respond) as model:
        env = base_env(database_url, tmp_path, api=prefect_api, **model.env(), AGENT_SIGNALS_SHARDS="1",
                       AGENT_SIGNALS_SHARDS_IN_FLIGHT="1", AGENT_SIGNALS_CONCURRENCY="1")  # fmt: skip
        assert cli("run", env=env).returncode == 0  # every message read once: the backfill finds nothing new
        before = len(model.requests)
        armed.set()
        proc = subprocess.Popen([*CLI, "backfill", *window, "--slice", "1d"], env=env, cwd=ROOT,
                                start_new_session=True, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)  # fmt: skip
        try:
            assert held.wait(300), "the backfill never reached its third slice"
            os.killpg(proc.pid, signal.SIGINT)
            _stdout, stderr = proc.communicate(timeout=60)  # a liveness bound, not a speed figure
        finally:
            release.set()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        armed.clear()
        assert proc.returncode == 130, stderr[-3000:]
        run_id, status, users, _actions, error, _flow = last_run(database_url)
        said = [line for line in stderr.splitlines() if line.startswith("interrupted:")]
        assert said == [
            f"interrupted: backfill run {run_id} finished 2 slice(s) and 4 user(s), 4 of them with nothing new; "
            "the same backfill again skips the finished slices"
        ], stderr[-3000:]
        assert (status, users) == ("interrupted", 4) and "SIGINT" in error

        again = cli("backfill", *window, "--slice", "1d", env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "slices_already_done 2" in again.stdout
