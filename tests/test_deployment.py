"""A real deployment, end to end: a local Prefect server, a process work pool, the deployments of
deploy/prefect.yaml registered with `prefect deploy`, two workers, and the backfill deployment triggered
with parameters, its shards spread over the workers as flow runs of the shard deployment
(AGENT_SIGNALS_RUNNER=deployments); the rows it wrote are checked, then everything is shut down by
process id."""

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

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.slow]

PREFECT = str(Path(sys.executable).parent / "prefect")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    # own process group: the server's and the worker's children go down with them
    return subprocess.Popen(
        args, env=env, cwd=Settings().database.project_dir, stdout=log.open("w"), stderr=subprocess.STDOUT,
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


def _cli(args: list[str], env: dict, timeout_s: float = 180) -> str:
    done = subprocess.run(
        [PREFECT, *args],
        env=env,
        cwd=Settings().database.project_dir,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    assert done.returncode == 0, (
        f"prefect {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def test_the_backfill_deployment_runs_on_workers_of_a_process_pool_shard_by_shard(database_url, tmp_path):
    with psycopg.connect(database_url, autocommit=True) as conn:
        load_conversations(
            conn,
            Settings(database_url=database_url),
            conversation("d1", "dora", [("user", "I'm a site reliability engineer. I own the paging rota.")]),
            conversation("d2", "eli", [("user", "I prefer answers as short bullet lists.")]),
            conversation("d3", "fay", [("user", "I work as a data analyst on the growth team.")]),
            conversation("d4", "gus", [("user", "I'm a backend developer. I prefer Python over Go.")]),
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
        "AGENT_SIGNALS_RUNNER": "deployments",  # the backfill's shards: flow runs of the shard deployment
        "AGENT_SIGNALS_SHARDS": "2",
        "AGENT_SIGNALS_SHARD_SIZE": "1",  # 4 users: 4 shard flow runs
    }
    server = _start(
        [PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)], env, tmp_path / "server.log"
    )
    workers: list[subprocess.Popen] = []
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
        for n in (1, 2):
            command = [PREFECT, "worker", "start", "--pool", "agent-signals", "--type", "process"]
            workers.append(_start([*command, "--name", f"worker-{n}"], env, tmp_path / f"worker-{n}.log"))

        since, until = T0 - timedelta(days=1), T0 + timedelta(days=2)
        out = _cli(
            ["deployment", "run", "backfill-signals/backfill", "--param", f"since={since.isoformat()}",
             "--param", f"until={until.isoformat()}", "--param", "slice=1d", "--watch",
             "--watch-timeout", "480"],
            env, timeout_s=540,  # liveness bounds, not speed figures: five flow-run processes on a busy CI
        )  # fmt: skip
        assert "Completed" in out, out[-2000:] + (tmp_path / "worker-1.log").read_text()[-3000:]
    finally:
        for proc in (*workers, server):
            _stop(proc)
    assert all(proc.poll() is not None for proc in (*workers, server))

    with psycopg.connect(database_url, autocommit=True) as conn:
        runs = conn.execute("select kind, status, users, window_start, window_end from ops.runs").fetchall()
        signals = conn.execute("select user_id, content from signals.signals order by 1, 2").fetchall()
        shards = conn.execute("select count(*), count(distinct flow_run_id) from ops.run_shards").fetchone()
    assert [(k, s, u) for k, s, u, _a, _b in runs] == [("backfill", "succeeded", 4)]
    assert shards == (4, 4)  # four shards, each its own flow run, their figures merged into the run's row
    assert (runs[0][3], runs[0][4]) == (since, until)
    assert {user for user, _content in signals} == {"dora", "eli", "fay", "gus"}
    assert ("eli", "Prefers answers as short bullet lists") in signals
