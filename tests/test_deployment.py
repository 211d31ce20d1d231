"""A real deployment, end to end: a local Prefect server, a process work pool, the deployments of
deploy/prefect.yaml registered with `prefect deploy`, a worker, and the backfill deployment triggered
with parameters; the rows it wrote are checked, then everything is shut down by process id."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

from agent_signals.config import Settings
from tests.builders import T0, conversation, load_conversations

pytestmark = [pytest.mark.db, pytest.mark.flow]

PREFECT = str(Path(sys.executable).parent / "prefect")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    # own process group: the server's and the worker's children go down with them
    return subprocess.Popen(
        args, env=env, cwd=Settings().project_dir, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _cli(args: list[str], env: dict) -> str:
    done = subprocess.run(
        [PREFECT, *args], env=env, cwd=Settings().project_dir, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, (
        f"prefect {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def test_the_backfill_deployment_runs_on_a_worker_of_a_process_pool(database_url, tmp_path):
    with psycopg.connect(database_url, autocommit=True) as conn:
        load_conversations(
            conn,
            Settings(database_url=database_url),
            conversation("d1", "dora", [("user", "I'm a site reliability engineer. I own the paging rota.")]),
            conversation("d2", "eli", [("user", "I prefer answers as short bullet lists.")]),
        )
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_API_URL": api,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_WORKER_PREFETCH_SECONDS": "1",
    }
    server = _start(
        [PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)], env, tmp_path / "server.log"
    )
    worker = None
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"{api}/health", timeout=2)
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "the Prefect server did not start"
                time.sleep(0.5)
        _cli(["work-pool", "create", "agent-signals", "--type", "process"], env)
        _cli(["--no-prompt", "deploy", "--all", "--prefect-file", "deploy/prefect.yaml"], env)
        worker = _start(
            [PREFECT, "worker", "start", "--pool", "agent-signals", "--type", "process"],
            env,
            tmp_path / "worker.log",
        )

        since, until = T0 - timedelta(days=1), T0 + timedelta(days=2)
        out = _cli(
            ["deployment", "run", "backfill-signals/backfill", "--param", f"since={since.isoformat()}",
             "--param", f"until={until.isoformat()}", "--param", "slice=1d", "--watch",
             "--watch-timeout", "240"],
            env,
        )  # fmt: skip
        assert "Completed" in out, out[-2000:] + (tmp_path / "worker.log").read_text()[-3000:]
    finally:
        for proc in (worker, server):
            if proc is not None:
                _stop(proc)
    assert server.poll() is not None and (worker is None or worker.poll() is not None)

    with psycopg.connect(database_url, autocommit=True) as conn:
        runs = conn.execute("select kind, status, users, window_start, window_end from ops.runs").fetchall()
        signals = conn.execute("select user_id, content from signals.signals order by 1, 2").fetchall()
    assert [(k, s, u) for k, s, u, _a, _b in runs] == [("backfill", "succeeded", 2)]
    assert (runs[0][3], runs[0][4]) == (since, until)
    assert {user for user, _content in signals} == {"dora", "eli"}
    assert ("eli", "Prefers answers as short bullet lists") in signals
