"""The run's CPU work off its event loop: AGENT_SIGNALS_WORKERS worker processes (default: the machine's
cores) render and count a user's prompts, parse and validate the answers and screen the candidates
(core/user_work.py), so that the loop only waits (for the model, the database) and a call's time is the
model's latency. Every shard of the run in this process shares them (shared_workers), as it shares the
model's pacing; the run closes them as it ends (close_shared).

The processes fork from a server that has loaded the screens once (preload.py: multiprocessing's
forkserver), so a pool starts in milliseconds and its processes share that memory. They ignore SIGINT and
SIGTERM: the run stops them as it stops. AGENT_SIGNALS_WORKERS=0, or a process that may not have children
(a Dask worker's), does the work in the loop itself, with the same functions."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import heapq
import itertools
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

from agent_signals.config import Settings
from agent_signals.core import user_work
from agent_signals.core.screening.redaction import redacting_logger

log = redacting_logger(__name__)
P = ParamSpec("P")
R = TypeVar("R")
PRELOAD = "agent_signals.stages.run.preload"
ORPHAN_POLL_S = 0.25  # how often a worker checks that the server it forked from is still there
SOON, LATER = 0, 1  # the priorities of waiting work: what the model's calls wait for, then the rest


def worker_count(settings: Settings) -> int:
    """The run's worker processes: AGENT_SIGNALS_WORKERS (unset: the cores this process may use), none in
    a process that may not have children (a daemon, such as a Dask worker)."""
    if multiprocessing.current_process().daemon:
        return 0
    if settings.run.workers is not None:
        return settings.run.workers
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """A pool of worker processes, started on first use (a run with nothing to extract starts none), in a
    thread: the first start of a process waits for the fork server to load the screens (seconds), which the
    event loop must not wait for."""

    def __init__(self, count: int, model: str) -> None:
        self.count = count
        self.model = model
        self._starting: Future[ProcessPoolExecutor] | None = None
        self._closed = False  # by the run that opened them: what comes after is done in this process
        self._busy = 0  # jobs in the processes: at most one each, the others wait here, by priority
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def begin(self) -> None:
        """Start the processes now, in the background (the run is about to need them); settle this process."""
        settle(self.model, in_process=not self.count or self._closed)
        if self.count and self._starting is None and not self._closed:
            self._starting = Future()
            # running: a job cancelled while it waits for the start cannot cancel it for the others
            self._starting.set_running_or_notify_cancel()
            threading.Thread(target=self._start, name="agent-signals-workers", daemon=True).start()

    def wait_started(self) -> None:
        """Wait for begin()'s processes (a benchmark's warm-up; a run never waits for them)."""
        if self._starting is not None:
            self._starting.result()

    async def run(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """fn(*args, **kwargs) in a worker process (in this one with no workers), after the work waiting for
        the model (run_soon). A worker that died (killed, out of memory) fails the work it had; the pool is
        started again for the next."""
        self.begin()
        if not self.count or self._closed:
            return fn(*args, **kwargs)
        return await self._run(LATER, fn, *args, **kwargs)

    async def run_soon(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """As run, for work the model's calls wait for (a user's prompts): before any other waiting work,
        and done in this process while the pool is still starting, so that the first calls of a process do
        not wait for the fork server to load the screens."""
        self.begin()
        if not self.count or self._starting is None or not self._starting.done():
            return fn(*args, **kwargs)
        return await self._run(SOON, fn, *args, **kwargs)

    async def _run(self, priority: int, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        starting = self._starting
        assert starting is not None
        executor = await asyncio.wrap_future(starting)
        await self._turn(priority)
        try:
            return await asyncio.get_running_loop().run_in_executor(
                executor, functools.partial(fn, *args, **kwargs)
            )
        except BrokenProcessPool:
            if self._starting is starting:
                log.warning("a worker process ended abruptly; its pool is started again")
                self._starting = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            self._next()

    async def _turn(self, priority: int) -> None:
        """Wait for a free process (the executor would queue the jobs in the order they came)."""
        if self._busy < self.count and not self._waiting:
            self._busy += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # it was handed the process as it was cancelled
                self._next()
            raise

    def _next(self) -> None:
        """A process is free: to the first waiting job, if any."""
        while self._waiting:
            _priority, _order, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._busy -= 1

    def _start(self) -> None:
        """The pool, its processes forked and warm (each has run a first task), into self._starting."""
        starting = self._starting
        assert starting is not None
        try:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([PRELOAD])
            executor = ProcessPoolExecutor(
                self.count, mp_context=context, initializer=_initialize, initargs=(self.model,)
            )
            for done in [executor.submit(os.getpid) for _ in range(self.count)]:
                done.result()
        except BaseException as exc:
            starting.set_exception(exc)
        else:
            starting.set_result(executor)

    def close(self) -> None:
        """Stop the processes (waiting for a start under way) and start none again."""
        self._closed = True
        starting, self._starting = self._starting, None
        if starting is not None:
            with contextlib.suppress(Exception):  # one that never started has nothing to stop
                starting.result().shutdown(wait=True, cancel_futures=True)


def settle(model: str, *, in_process: bool) -> None:
    """Once a process, as its first users' work begins: what the process has loaded is frozen (gc.freeze, as
    the fork server does: preload.py), so that the garbage collector's full collections no longer walk it
    (about a million objects: half a second each in a run's process, a second where it does the users'
    work itself, whose screens are loaded first for it). A run with nothing to do never gets here."""
    global _settled
    if _settled:
        return
    _settled = True
    if in_process:
        user_work.warm(model)
    gc.collect(1)  # the young garbage; what is older and already garbage stays (once a process)
    gc.freeze()


_settled = False


def _initialize(model: str) -> None:
    """A worker process: stopped by the run, not by the signals the run handles, and gone with the server
    it forked from (which ends with the run's process, however it ends: a worker outliving a killed run
    would hold its output open); warm (preload.py has loaded the screens in that server: this loads the
    model's tokenizer)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(os.getppid(),), name="end-with-parent", daemon=True).start()
    user_work.warm(model)


def _end_with(parent: int) -> None:
    """End this process once its parent has (it is then another process's child)."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    os._exit(0)


def stop_now() -> None:
    """This process ends now, without its exit handlers (a stopped run): its fork server ends with it, even
    while still loading the screens, and its workers with the fork server (_end_with), none of them left
    holding the process's output open."""
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    pid = getattr(server, "_forkserver_pid", None)
    if pid:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def shared_workers(settings: Settings) -> Workers:
    """The workers of this process for these settings (made on first use, kept until close_shared)."""
    global _shared
    key = (worker_count(settings), settings.model.name)
    if _shared is None or (_shared.count, _shared.model) != key:
        if _shared is not None:
            _shared.close()
        _shared = Workers(*key)
    return _shared


def close_shared() -> None:
    """Stop this process's workers (the run that opened them ends)."""
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None


_shared: Workers | None = None
