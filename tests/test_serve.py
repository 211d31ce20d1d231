"""`agent-signals serve` with no PREFECT_API_URL, end to end with real processes: it starts its own Prefect
server (with a scheduler), the schedule creates a run that completes, a manual deployment run completes
under the deployment's concurrency limit, and SIGTERM or SIGINT stops every process serve started."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "agent_signals"]
PREFECT = [sys.executable, "-m", "prefect"]
EVERY_MINUTE = "* * * * *"
NEVER_DURING_A_TEST = "0 0 1 1 *"
SUCCEEDED = ("scheduled", "succeeded")
BANNER = re.compile(r"Prefect API (http://127\.0\.0\.1:\d+/api) \(started by serve")


@pytest.fixture
def serve(database_url, tmp_path):
    """Start `serve` on a database seeded with 5 demo users; yield a function doing it for a given cron (and
    more environment), returning (the process, its Prefect API URL, the environment to reach it). Killed at
    the end if alive."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"},
        "DATABASE_URL": database_url,
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",  # the runner looks for due runs every 2 s (default 10 s)
    }
    seeded = subprocess.run(
        [*CLI, "demo", "seed", "--users", "5"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert seeded.returncode == 0, seeded.stderr[-3000:]
    log = tmp_path / "serve.log"
    started: list[subprocess.Popen] = []

    def start(cron: str, **more_env: str) -> tuple[subprocess.Popen, str, dict]:
        with log.open("w") as out:
            proc = subprocess.Popen(
                [*CLI, "serve"], env={**env, "AGENT_SIGNALS_SCHEDULE_CRON": cron, **more_env}, cwd=ROOT,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,  # its own group, as in a terminal
            )  # fmt: skip
        started.append(proc)
        wait_for(lambda: "Your deployments are being served" in log.read_text(), proc, log, 180)
        api_url = BANNER.search(log.read_text())[1]
        return proc, api_url, {**env, "PREFECT_API_URL": api_url}

    yield start
    for proc in started:
        if proc.poll() is None:
            for pid in [*descendants(proc.pid), proc.pid]:
                kill(pid)
            proc.wait()


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
def test_a_manual_deployment_run_completes_and_sigint_stops_everything(serve, database_url, tmp_path):
    proc, _api_url, env = serve(NEVER_DURING_A_TEST)
    manual = subprocess.run(
        [*PREFECT, "deployment", "run", "extract-signals/scheduled", "--watch", "--watch-timeout", "150"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert manual.returncode == 0 and "Completed" in manual.stdout, (
        manual.stdout[-2000:] + manual.stderr[-900:]
    )
    flow_run_id = re.search(r"UUID: ([0-9a-f-]{36})", manual.stdout)[1]
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("select kind, status, users from ops.runs where flow_run_id = %s", (flow_run_id,))
        assert row.fetchall() == [("scheduled", "succeeded", 5)]
    stops_with_everything_it_started(proc, signal.SIGINT, tmp_path)


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
def test_the_schedule_makes_a_run_that_completes_and_sigterm_stops_everything(serve, database_url, tmp_path):
    proc, api_url, _env = serve(EVERY_MINUTE)
    log = tmp_path / "serve.log"

    def scheduled_run_succeeded() -> bool:
        with psycopg.connect(database_url, autocommit=True) as conn:
            rows = conn.execute("select flow_run_id from ops.runs where kind = %s and status = %s", SUCCEEDED)
            return any(flow_run(api_url, row[0])["auto_scheduled"] for row in rows)

    wait_for(scheduled_run_succeeded, proc, log, 240)  # the next minute, then the run (slow on a busy CI)
    stops_with_everything_it_started(proc, signal.SIGTERM, tmp_path)


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
def test_ctrl_c_stops_a_flow_run_in_progress_as_it_stops_run(serve, database_url, tmp_path):
    """Ctrl-C on serve (SIGINT to its process group, as a terminal sends it) while a deployment's flow run is
    between two users: the flow run's row says `interrupted` with what it committed, as `agent-signals run`
    does, instead of staying `running`; serve and everything it started stop."""
    import threading

    from tests import http_model

    held, release = threading.Event(), threading.Event()

    def respond(_path: str, _body: dict) -> tuple[int, dict]:
        if sum(1 for path, _b in model.requests if path.endswith("/chat/completions")) == 3:
            held.set()  # the third user's answer waits: the first two are in
            release.wait()
        return http_model.chat('{"actions": []}')

    with http_model.serve(respond) as model:
        proc, _api_url, env = serve(
            NEVER_DURING_A_TEST, **model.env(), AGENT_SIGNALS_CONCURRENCY="1", AGENT_SIGNALS_SHARD_SIZE="1",
            AGENT_SIGNALS_SHARDS_IN_FLIGHT="1",
        )  # fmt: skip
        try:
            started = subprocess.run(
                [*PREFECT, "deployment", "run", "extract-signals/scheduled"], env=env, cwd=ROOT,
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-900:]
            wait_for(held.is_set, proc, tmp_path / "serve.log", 240)
            tree = descendants(proc.pid)
            os.killpg(proc.pid, signal.SIGINT)
            assert proc.wait(timeout=60) == 0, (tmp_path / "serve.log").read_text()[-3000:]
        finally:
            release.set()
    with psycopg.connect(database_url, autocommit=True) as conn:
        run_id, status, users, error = conn.execute(
            "select run_id, status, users, error from ops.runs where kind = 'scheduled'"
        ).fetchone()
        committed = conn.execute(
            "select count(*) from (select user_id from signals.events where run_id = %(r)s union "
            "select user_id from signals.watermarks where run_id = %(r)s) u", {"r": run_id}
        ).fetchone()[0]  # fmt: skip
    assert status == "interrupted" and error.startswith("interrupted by SIG"), (status, error)
    assert users == committed
    assert f"{users} user(s) committed by run {run_id}" in (tmp_path / "serve.log").read_text()
    deadline = time.monotonic() + 30
    while (left := [pid for pid in tree if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, "left running after Ctrl-C: " + " | ".join(cmdline(pid) for pid in left)


@pytest.mark.db
@pytest.mark.flow
def test_a_server_that_does_not_come_up_in_time_is_one_error_line_and_leaves_nothing(tmp_path):
    home = tmp_path / "prefect-home"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env |= {"PREFECT_HOME": str(home), "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "1"}
    done = subprocess.run([*CLI, "serve"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    error, hint = done.stderr.strip().splitlines()
    assert re.fullmatch(
        r"error: the local Prefect server did not answer http://127\.0\.0\.1:\d+/api/health within 1s", error
    )
    assert hint.startswith(f"hint: see {home / 'server.log'}; ")
    assert not processes_with(home), "the server outlived serve"


@pytest.mark.unit
def test_a_configured_prefect_api_is_used_and_nothing_is_started():
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from agent_signals.adapters.prefect_server import prefect_api

    before = descendants(os.getpid())
    with temporary_settings({PREFECT_API_URL: "http://127.0.0.1:9/api"}), prefect_api() as (api_url, log):
        assert (api_url, log) == ("http://127.0.0.1:9/api", None)
        assert descendants(os.getpid()) == before


def stops_with_everything_it_started(proc: subprocess.Popen, sig: signal.Signals, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    tree = descendants(proc.pid)
    assert tree, "serve runs its Prefect server as a child"
    proc.send_signal(sig)
    assert proc.wait(timeout=60) == 0, log.read_text()[-3000:]
    deadline = time.monotonic() + 30
    while (left := [pid for pid in tree if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"left running after {sig.name}: " + " | ".join(cmdline(pid) for pid in left)
    assert not processes_with(tmp_path / "prefect-home"), "a process serve started escaped its tree"


def wait_for(condition, proc: subprocess.Popen, log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert proc.poll() is None, f"serve exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"not within {seconds}s:\n{log.read_text()[-3000:]}"
        time.sleep(1)


def flow_run(api_url: str, flow_run_id) -> dict:
    with urllib.request.urlopen(f"{api_url}/flow_runs/{flow_run_id}", timeout=10) as response:
        return json.load(response)


def descendants(pid: int) -> list[int]:
    """Every process below pid (children, their children, ...), read from /proc."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found.extend(children)
        frontier = children
    return found


def processes_with(prefect_home: Path) -> list[str]:
    """Live processes whose environment has this PREFECT_HOME: whatever serve started, even re-parented."""
    marker = f"PREFECT_HOME={prefect_home}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker in environ.read_bytes().split(b"\0") and alive(int(environ.parent.name)):
                found.append(cmdline(int(environ.parent.name)))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for its parent."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def cmdline(pid: int) -> str:
    try:
        return f"{pid}: " + Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return str(pid)
