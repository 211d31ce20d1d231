"""The Prefect server `agent-signals serve` talks to: the configured one, or a real local one it manages.

Prefect's temporary (ephemeral) server is no place to serve deployments: it runs no scheduler, so no
scheduled run is ever created, and every process that starts one keeps its own deployment concurrency
leases, so a flow run loses its slot ("Lease ... not found during release") and ends Cancelled. With no
PREFECT_API_URL configured, `serve` therefore runs `prefect server start` (scheduler and the other services
on; its SQLite database under PREFECT_HOME, which defaults to <data dir>/prefect) on a free loopback port,
as a child process:

- in its own session, so stopping it is one signal to its whole process group: SIGTERM, then SIGKILL after
  STOP_GRACE_S; done on the way out of `prefect_api()` whatever the reason (a signal, an error), and again
  at interpreter exit as a backstop;
- on Linux with PR_SET_PDEATHSIG (set by this module's `__main__` before it execs the server), so the kernel
  stops the server even when `serve` itself is SIGKILLed;
- waited for until /api/health answers, within Prefect's startup timeout
  (PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS), else a one-line error names its log.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_signals.adapters.runtime import environment
from agent_signals.errors import AgentSignalsError

STOP_GRACE_S = 10.0  # how long the server gets to stop on SIGTERM before it is SIGKILLed
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
HOST = "127.0.0.1"


class PrefectServerError(AgentSignalsError):
    """The local Prefect server did not come up."""


@contextmanager
def prefect_api() -> Iterator[tuple[str, Path | None]]:
    """Yield (the Prefect API URL this process uses, the log of the server started for it or None).

    A configured PREFECT_API_URL is used as is and nothing is started. Otherwise a local server is started,
    this process (and the flow runs it starts) point at it until the block ends, and then it is stopped."""
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    configured = PREFECT_API_URL.value()
    if configured:
        yield configured, None
        return
    log = Path(get_current_settings().home) / "server.log"
    startup_timeout_s = get_current_settings().server.ephemeral.startup_timeout_seconds
    previous_sigterm = signal.signal(signal.SIGTERM, _exit)  # until Prefect's runner installs its own
    server = None
    try:
        server, api_url = _start(log)
        atexit.register(_stop, server)
        _wait_until_healthy(server, api_url, log, startup_timeout_s)
        with environment({"PREFECT_API_URL": api_url}), temporary_settings({PREFECT_API_URL: api_url}):
            yield api_url, log
    finally:
        if server is not None:
            _drain_prefect_services()
            _stop(server)
            atexit.unregister(_stop)
        signal.signal(signal.SIGTERM, previous_sigterm)


def _drain_prefect_services(timeout_s: float = 10.0) -> None:
    """Send what Prefect's log and event services still hold while the server is up: a service whose server
    went first keeps retrying, and its at-exit drain then holds the process open for good."""
    from prefect._internal.concurrency.services import QueueService

    QueueService.drain_all(timeout=timeout_s, at_exit=False)


def _exit(signum: int, _frame: object) -> None:
    raise SystemExit(0)  # as Prefect's runner does on SIGTERM: unwind, so the server is stopped


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _start(log: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    args = ["server", "start", "--host", HOST, "--port", str(port), "--scheduler", "--late-runs"]
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", __name__, str(os.getpid()), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: one killpg stops it and anything it starts
        )
    return server, f"http://{HOST}:{port}/api"


def _wait_until_healthy(server: subprocess.Popen, api_url: str, log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if server.poll() is not None:
            raise PrefectServerError(
                f"the local Prefect server exited with code {server.returncode} while starting: {_last_line(log)}",
                hint=f"see {log}, or set PREFECT_API_URL to a running Prefect server",
            )
        if time.monotonic() > deadline:
            raise PrefectServerError(
                f"the local Prefect server did not answer {api_url}/health within {timeout_s:.0f}s",
                hint=f"see {log}; raise PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS on a slow machine, "
                "or set PREFECT_API_URL to a running Prefect server",
            )
        time.sleep(0.25)


def _last_line(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def _stop(server: subprocess.Popen) -> None:
    """SIGTERM the server's process group, SIGKILL it after STOP_GRACE_S; return once the group is gone."""
    ignored = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        for sig, grace_s in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, STOP_GRACE_S)):
            if not _signal_group(server.pid, sig):
                break
            deadline = time.monotonic() + grace_s
            while time.monotonic() < deadline:
                server.poll()  # reap the leader: a zombie still counts as a member of its group
                if not _signal_group(server.pid, 0):
                    return
                time.sleep(0.05)
    finally:
        server.poll()
        for sig, handler in ignored.items():
            signal.signal(sig, handler)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send sig to the process group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def _exec_server(parent: int, args: list[str]) -> None:
    """The child: ask the kernel for SIGTERM when `parent` dies (kept across exec), then become the server."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the request took effect
            sys.exit(1)
    os.execv(sys.executable, [sys.executable, "-m", "prefect", *args])


if __name__ == "__main__":
    _exec_server(int(sys.argv[1]), sys.argv[2:])
