"""A run as every stage sees it: the RunContext (settings, window, pool, ledger connection, figures), what
stops it early (Stop: a misconfigured model, a signal, a lost database connection; cut_off tells an error
of the stop from an error of the work), what a replay changes (Rehearsal), the picklable
RunSpec a shard's worker joins the run with, the pacing every shard of a process shares, and the `timed` /
`stage` helpers that add each stage's wall time to the run's figures. Opening and closing a run is in
lifecycle.py."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import ParamSpec, Protocol, TypeVar
from uuid import UUID

import psycopg
from psycopg_pool import AsyncConnectionPool

from agent_signals.adapters import llm, pacing, structured
from agent_signals.config import Settings
from agent_signals.core.outcome import Provenance
from agent_signals.core.prompting.extract_calls import UserMessages
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.run.workers import Workers, shared_workers
from agent_signals.store import database
from agent_signals.store.ledger import runs
from agent_signals.store.source import Window

log = redacting_logger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class RunListeners:
    """What the caller of a run hears of it in the run's own process (the CLI passes them to the flow; a
    deployment's flow run has none).

    progress(user ids, messages): after each shard's figures reach the run (shards.merge), the users it
    attempted and their messages (the CLI's progress bar).
    interrupted(signal, summary): the run stops on SIGINT and SIGTERM (without it, a deployment's flow run
    keeps Prefect's own handling): its writes in flight are cut off (rolled back), its ledger row says
    `interrupted` with the figures of what it committed, then this is called, and it must end the process
    (summary None: a dry run, or a run not recorded yet). See lifecycle.open_run."""

    progress: Callable[[list[str], int], None] | None = None
    interrupted: Callable[[int, dict | None], None] | None = None


@dataclass
class RunContext:
    """One run as every stage sees it (or, joined from a shard's worker, the part of it this process does:
    lifecycle.join_run): what to read, where to write, and the figures that go to the ledger."""

    settings: Settings
    run_id: UUID
    kind: str
    window: Window
    prompt_version: str
    pool: AsyncConnectionPool
    ledger: psycopg.AsyncConnection  # also holds the run's lock and its users' locks
    stats: runs.RunStats
    pacing: Pacing
    dry_run: bool = False
    status: str = "running"
    listeners: RunListeners = field(default_factory=RunListeners)  # the CLI's, in its process
    already_spent: tuple[int, float] = (0, 0.0)  # tokens and USD spent by the run before this context joined
    rehearsal: Rehearsal | None = None  # a replay's (dry run only): see Rehearsal
    recording: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of answered calls at a time

    workers: Workers = field(init=False)  # this process's part of the run, shared by its shards (workers.py)

    def __post_init__(self) -> None:
        # bound once: work still running after the run closed them is done in this process (Workers.close),
        # never by a pool started anew that nothing would close
        self.workers = shared_workers(self.settings)

    @property
    def until(self) -> datetime:
        return self.window.until

    @property
    def stop(self) -> Stop:
        """Why the run stops early, shared by every part of it in this process."""
        return _stops.setdefault(self.run_id, Stop())

    def halt(self, error: llm.ModelMisconfigured) -> None:
        """Start no new user: the model is misconfigured (the first error is the one reported)."""
        if self.stop.error is None:
            self.stop.error = error
            log.error("stopping the run: %s", error.message)

    @property
    def budget_exhausted(self) -> bool:
        """The run's token or cost budget is spent: no new user is started."""
        settings = self.settings
        tokens, cost = self.spent
        return (settings.run.max_run_tokens is not None and tokens >= settings.run.max_run_tokens) or (
            settings.run.max_run_cost_usd is not None and cost >= settings.run.max_run_cost_usd
        )

    @property
    def spent(self) -> tuple[int, float]:
        s = self.stats
        tokens = s.prompt_tokens + s.completion_tokens + s.embedding_tokens
        return self.already_spent[0] + tokens, self.already_spent[1] + s.cost_usd

    def spec(self) -> RunSpec:
        """What a shard's worker needs to join this run (picklable: sent to Dask workers)."""
        return RunSpec(
            self.settings, self.run_id, self.kind, self.window, self.prompt_version, self.dry_run, self.spent
        )

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.run_id, self.prompt_version, self.settings.model.name)

    def summary(self) -> dict:
        return self.stats.summary(
            self.run_id, self.kind, self.status, self.dry_run, structured.answer_mode(self.settings)
        )


@dataclass
class Stop:
    """Why a run starts no new user: a misconfigured model, a signal (Ctrl-C or SIGTERM), or a lost database
    connection; and what every part of the run in this process shares."""

    error: llm.ModelMisconfigured | None = None
    signal: int | None = None
    database: str | None = None  # the run lost its database connection (why)
    pools: set[AsyncConnectionPool] = field(default_factory=set)  # the run's pools in this process
    interrupting: asyncio.Task | None = None  # writes the row of an interrupted run, then ends the process
    first_call: asyncio.Lock = field(default_factory=asyncio.Lock)  # held by the run's first model call
    model_answered: bool = False  # the first call came back (answer or transient fault): calls go at once
    finished: set[str] = field(default_factory=set)  # users whose writes this process committed

    @property
    def stopped(self) -> bool:
        return self.error is not None or self.signal is not None or self.database is not None

    @property
    def cut(self) -> bool:
        """The run's writes are cut off (a signal, or the database gone): nothing more is written."""
        return self.signal is not None or self.database is not None


_stops: dict[UUID, Stop] = {}  # by run, in this process: every shard of the run here shares its Stop


def stopped(run_id: UUID) -> bool:
    """Whether the run stopped early in this process (see Stop)."""
    stop = _stops.get(run_id)
    return stop is not None and stop.stopped


def forget_stop(run_id: UUID) -> None:
    """The run is over in this process."""
    _stops.pop(run_id, None)


def raise_if_stopped(ctx: RunContext) -> None:
    """After a stage: a misconfigured model or a lost database connection met by any part of the run (here
    or in another process) fails the run with that error."""
    error = ctx.stop.error or (
        llm.ModelMisconfigured(*ctx.stats.model_error) if ctx.stats.model_error else None
    )
    if error is not None:
        raise error
    lost = ctx.stop.database or ctx.stats.database_lost
    if lost is not None:
        ctx.stop.database = lost
        raise database_lost(ctx)


def database_lost(ctx: RunContext) -> database.DatabaseLost:
    return database.DatabaseLost(
        f"run {ctx.run_id} lost its database connection: {ctx.stop.database}",
        hint="what it committed stays; once the database answers again, the next run does the rest",
    )


async def cut_off(ctx: RunContext, exc: BaseException) -> bool:
    """Whether `exc` comes from the run being cut off, not from the work: the run was interrupted, or its
    database connection is lost. A first lost connection stops the run here: no new user and no new write
    (users in flight stay pending, as after an interrupt), and the run's pools in this process are closed so
    that nothing waits for a connection the server cannot give."""
    stop = ctx.stop
    if stop.cut:
        return True
    if not database.connection_lost(exc):
        return False
    stop.database = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    ctx.stats.database_lost = stop.database
    log.error("the database connection was lost (%s): the run starts nothing new and ends", stop.database)
    for pool in list(stop.pools):
        await pool.close(timeout=1)
    return True


class Rehearsal(Protocol):
    """What a replay (replay.py) changes in a dry run's stages: what the model is shown, and what happens
    around each user's apply, inside one transaction that is always rolled back (apply_safely._rehearsed)."""

    def shown(self, user: UserMessages) -> UserMessages: ...

    async def before_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None: ...

    async def after_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None: ...


@contextmanager
def timed(ctx: RunContext, name: str) -> Iterator[None]:
    """Add the wall time of the block to the run's figures under `name`."""
    started = time.monotonic()
    try:
        yield
    finally:
        ctx.stats.stage_seconds[name] += time.monotonic() - started


def stage(name: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Add the wall time of a stage function (first argument: the RunContext) to the run's figures."""

    def wrap(function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(function)
        async def run_timed(*args: P.args, **kwargs: P.kwargs) -> R:
            ctx = args[0]
            assert isinstance(ctx, RunContext)
            with timed(ctx, name):
                return await function(*args, **kwargs)

        return run_timed

    return wrap


@dataclass(frozen=True)
class RunSpec:
    """A run as a shard's worker sees it: in this process, in a Dask worker or in another flow run."""

    settings: Settings
    run_id: UUID
    kind: str
    window: Window
    prompt_version: str
    dry_run: bool
    already_spent: tuple[int, float]  # for the budget: what the run had spent when the shard was handed out

    def to_params(self) -> dict:
        """As a flow run's parameters (JSON); the worker's own environment gives the settings."""
        w = self.window
        return {
            "run_id": str(self.run_id), "kind": self.kind, "prompt_version": self.prompt_version,
            "dry_run": self.dry_run, "already_spent": list(self.already_spent),
            "window": {"until": w.until.isoformat(), "since": w.since.isoformat() if w.since else None,
                       "users": list(w.users) if w.users else None, "ignore_watermarks": w.ignore_watermarks},
        }  # fmt: skip

    @classmethod
    def from_params(cls, params: dict, settings: Settings) -> RunSpec:
        w = params["window"]
        window = Window(
            until=datetime.fromisoformat(w["until"]),
            since=datetime.fromisoformat(w["since"]) if w["since"] else None,
            users=tuple(w["users"]) if w["users"] else None,
            ignore_watermarks=bool(w["ignore_watermarks"]),
        )
        tokens, cost = params["already_spent"]
        return cls(settings, UUID(params["run_id"]), params["kind"], window, params["prompt_version"],
                   bool(params["dry_run"]), (int(tokens), float(cost)))  # fmt: skip


@dataclass
class Pacing:
    """What every shard processed in one process (and event loop) shares: the model's rate limits and
    the number of extractions in flight (AGENT_SIGNALS_CONCURRENCY), however many shards run at once.
    Across processes, AGENT_SIGNALS_PREFECT_RATE_LIMIT paces calls through Prefect."""

    limiter: pacing.RateLimiter
    model_slots: asyncio.Semaphore  # model calls out at once
    users_in_flight: asyncio.Semaphore  # users in progress: IN_FLIGHT_PER_SLOT for each model slot


def shared_pacing(settings: Settings) -> Pacing:
    """The pacing of this process and event loop for these limits (made on first use)."""
    global _shared_pacing
    key = (settings.model.requests_per_minute, settings.model.tokens_per_minute, settings.run.concurrency,
           asyncio.get_running_loop())  # fmt: skip
    if _shared_pacing is None or _shared_pacing[0] != key:
        limiter = pacing.RateLimiter(settings.model.requests_per_minute, settings.model.tokens_per_minute)
        slots = settings.run.concurrency
        _shared_pacing = (
            key,
            Pacing(limiter, asyncio.Semaphore(slots), asyncio.Semaphore(slots * IN_FLIGHT_PER_SLOT)),
        )
    return _shared_pacing[1]


_shared_pacing: tuple[tuple, Pacing] | None = None
# users in progress for each model slot: while one user's call is out, the next one's prompts are made and
# the last one's answer judged and screened (in the worker processes), so that a slot never waits for them
IN_FLIGHT_PER_SLOT = 2
