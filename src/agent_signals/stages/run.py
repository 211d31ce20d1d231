"""The stages of one run as plain functions (flows/ only composes them; tests call them directly):
open a run, scan its window, then per shard: lock the users -> load -> extract -> validate -> quality
gate -> apply. The stages after the writes are in finish.py.

Each action of an answer is judged on its own (validation, screening, the quality gate): the rejected ones
are recorded (ops.rejected_actions), the others applied. An answer that cannot be parsed, or a model error
for the user's prompt, is a failure of the user (ops.failures): tried again after a growing backoff, and
after AGENT_SIGNALS_FAILING_USER_ATTEMPTS the messages those calls read are set aside (retries.py)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import ParamSpec, Protocol, TypeVar
from uuid import UUID, uuid4

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from agent_signals.adapters import expectations as quality
from agent_signals.adapters import llm, structured
from agent_signals.config import Settings
from agent_signals.core.answers import (
    InvalidAnswer,
    ReconcileAnswer,
    parse_extract_actions,
    parse_reconcile_answer,
)
from agent_signals.core.batching import SourceMessage, UserBatch, build_calls, prompt_version
from agent_signals.core.prompts import CoreLine, render_reconcile
from agent_signals.core.redaction import redacting_logger
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.core.screen import redact, screen, screen_text
from agent_signals.core.validate import Proposal, Rejection, validate_answer
from agent_signals.stages import embed as embeddings
from agent_signals.stages.apply import Provenance, apply_user
from agent_signals.stages.reconcile import Decide
from agent_signals.store import db, runs
from agent_signals.store.migrate import check_current
from agent_signals.store.source import Pending, Window, load_batches, pending_users
from agent_signals.store.sqlfiles import query

log = redacting_logger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class RunContext:
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
    progress: Callable[[list[str], int], None] | None = None  # (user ids, messages) done, for progress bars
    already_spent: tuple[int, float] = (0, 0.0)  # tokens and USD spent by the run before this context joined
    rehearsal: Rehearsal | None = None  # a replay's (dry run only): see Rehearsal

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
        return (settings.max_run_tokens is not None and tokens >= settings.max_run_tokens) or (
            settings.max_run_cost_usd is not None and cost >= settings.max_run_cost_usd
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
        return Provenance(self.run_id, self.prompt_version, self.settings.model)

    def summary(self) -> dict:
        return self.stats.summary(
            self.run_id, self.kind, self.status, self.dry_run, structured.answer_mode(self.settings)
        )


@dataclass
class Stop:
    """Why a run starts no new user: a misconfigured model, or a signal (the CLI's Ctrl-C or SIGTERM)."""

    error: llm.ModelMisconfigured | None = None
    signal: int | None = None
    pools: set[AsyncConnectionPool] = field(default_factory=set)  # the run's pools in this process
    interrupting: asyncio.Task | None = None  # writes the row of an interrupted run, then ends the process
    first_call: asyncio.Lock = field(default_factory=asyncio.Lock)  # held by the run's first model call
    model_answered: bool = False  # the first call came back (answer or transient fault): calls go at once

    @property
    def stopped(self) -> bool:
        return self.error is not None or self.signal is not None


_stops: dict[UUID, Stop] = {}


def raise_if_stopped(ctx: RunContext) -> None:
    """After a stage: a misconfigured model met by any part of the run (here or in another process) fails
    the run with that error."""
    error = ctx.stop.error or (
        llm.ModelMisconfigured(*ctx.stats.model_error) if ctx.stats.model_error else None
    )
    if error is not None:
        raise error


class Rehearsal(Protocol):
    """What a replay (replay.py) changes in a dry run's stages: what the model is shown, and what happens
    around each user's apply, inside one transaction that is always rolled back (_rehearsed)."""

    def shown(self, batch: UserBatch) -> UserBatch: ...

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


_progress_listener: Callable[[list[str], int], None] | None = None
_interrupt_listener: Callable[[int, dict | None], None] | None = None


def on_progress(listener: Callable[[list[str], int], None] | None) -> None:
    """Have runs started in this process report (user ids, messages) done after each shard (the CLI's
    progress bar). None stops it."""
    global _progress_listener
    _progress_listener = listener


def on_interrupt(listener: Callable[[int, dict | None], None] | None) -> None:
    """Have runs started in this process stop on SIGINT and SIGTERM (the CLI; a deployment's flow run keeps
    Prefect's own handling): the run's writes in flight are cut off (rolled back), its ledger row says
    `interrupted` with the figures of what it committed, then `listener(signal, summary)` is called, which
    must end the process (summary None: a dry run, or a run not recorded yet). None stops it."""
    global _interrupt_listener
    _interrupt_listener = listener


@asynccontextmanager
async def open_run(
    settings: Settings,
    *,
    kind: str,
    flow_run_id: UUID | None = None,
    window: Window | None = None,
    dry_run: bool = False,
    parameters: dict | None = None,
) -> AsyncIterator[RunContext]:
    """Check the schema, record the run (not for a dry run), open the pool; on exit write the ledger."""
    url = db.database_url(settings)
    with db.session(settings) as conn:
        check_current(conn, settings)
    llm.register_offline(settings.offline_latency_ms / 1000, settings.embedding_model)
    window = window or Window(until=datetime.now(UTC))
    ledger = await db.aconnect(url, autocommit=True)
    run_id = uuid4()
    pool = _pool(url, settings, run_id)
    pacing = _pacing(settings)
    ctx = RunContext(
        settings,
        run_id,
        kind,
        window,
        prompt_version(settings),
        pool,
        ledger,
        runs.RunStats(),
        pacing,
        dry_run,
        progress=_progress_listener,
    )
    error = None
    ctx.stop.pools.add(pool)
    recorded = False
    signals = _catch_signals(ctx, url, lambda: recorded)
    try:
        if not dry_run:
            abandoned = await runs.abandon_dead_runs(ledger, settings)
            if abandoned:
                log.warning(
                    "marked %d dead run(s) abandoned; their pending users are picked up now", len(abandoned)
                )
            await runs.start_run(
                ledger,
                settings,
                run_id=ctx.run_id,
                kind=kind,
                window_start=window.since,
                window_end=window.until,
                prompt_version=ctx.prompt_version,
                flow_run_id=flow_run_id,
                parameters=parameters,
            )
            recorded = True
        llm.check_environment(settings)  # a missing key fails here, before any user is touched
        await pool.open(wait=True)
        yield ctx
        raise_if_stopped(ctx)
        if ctx.budget_exhausted and ctx.stats.skipped_users.get("budget"):
            ctx.status = "budget_exhausted"
        else:
            ctx.status = "partial" if ctx.stats.failures else "succeeded"
    except BaseException as exc:
        ctx.status = "failed"
        error = exc.message if isinstance(exc, llm.ModelMisconfigured) else f"{type(exc).__name__}: {exc}"
        error = error[:2000]
        raise
    finally:
        if ctx.stop.interrupting is not None:  # the run came apart because it was interrupted
            await ctx.stop.interrupting  # ends the process
        try:
            if not dry_run and ctx.stop.signal is None:
                await _final_ledger_row(ctx, url, error)
        finally:
            signals.close()
            _stops.pop(ctx.run_id, None)
            await pool.close()
            await ledger.close()


def _pool(url: str, settings: Settings, run_id: UUID) -> AsyncConnectionPool:
    """A run's connections for its users' work, named after the run (an interrupt cuts them off)."""
    return AsyncConnectionPool(
        url, min_size=1, max_size=settings.concurrency + 1, open=False,
        kwargs={"autocommit": True, "application_name": _application_name(run_id)},
    )  # fmt: skip


def _application_name(run_id: UUID) -> str:
    return f"agent-signals run {run_id}"


class _Signals:
    """SIGINT and SIGTERM handlers of one run's life (installed only when the CLI asked for them)."""

    CAUGHT = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.loop = loop

    def close(self) -> None:
        if self.loop is not None:
            for signum in self.CAUGHT:
                self.loop.remove_signal_handler(signum)


def _catch_signals(ctx: RunContext, url: str, recorded: Callable[[], bool]) -> _Signals:
    listener = _interrupt_listener
    if listener is None:
        return _Signals(None)
    loop = asyncio.get_running_loop()

    def caught(signum: int) -> None:
        if ctx.stop.signal is None:
            ctx.stop.signal = signum  # no new user, no new write from here on
            ctx.stop.interrupting = loop.create_task(_interrupted(ctx, url, signum, recorded(), listener))

    for signum in _Signals.CAUGHT:
        loop.add_signal_handler(signum, caught, signum)
    return _Signals(loop)


async def _interrupted(
    ctx: RunContext, url: str, signum: int, recorded: bool, listener: Callable[[int, dict | None], None]
) -> None:
    """Cut off the run's writes in flight (their transactions roll back: those users stay pending), then
    write its ledger row from what it committed, then hand over to the listener, which ends the process."""
    logging.disable(logging.CRITICAL)  # what follows is the run coming apart: one line from the CLI says it
    for pool in list(ctx.stop.pools):
        await pool.close(timeout=0)
    if ctx.dry_run or not recorded:
        listener(signum, None)
        return
    settings = ctx.settings
    summary = None
    try:
        async with await db.aconnect(url, autocommit=True) as conn:
            name = _application_name(ctx.run_id)
            await conn.execute(query(settings, "end_run_sessions"), {"application_name": name})
            cur = await conn.execute(query(settings, "committed_by_run"), {"run_id": ctx.run_id})
            users, conversations, actions = await cur.fetchone()
            # a snapshot: shards still finishing in this loop go on adding to ctx.stats while we write
            stats = replace(ctx.stats, users=users, conversations=conversations, actions=Counter(actions))
            ctx.status = "interrupted"
            reason = f"interrupted by {signal.Signals(signum).name}"
            await runs.update_run(conn, settings, ctx.run_id, stats, ctx.status, reason)
        summary = stats.summary(
            ctx.run_id, ctx.kind, ctx.status, ctx.dry_run, structured.answer_mode(settings)
        )
    finally:  # the database gone too: the row stays `running` and the next run marks it abandoned
        listener(signum, summary)


async def _final_ledger_row(ctx: RunContext, url: str, error: str | None) -> None:
    """Write the run's final row; if the database dropped the ledger's connection (a restart, a
    terminated backend), write it on a new connection so that the ledger says what happened."""
    try:
        await runs.update_run(ctx.ledger, ctx.settings, ctx.run_id, ctx.stats, ctx.status, error)
        return
    except psycopg.OperationalError as exc:
        lost = f"database connection lost: {str(exc).strip()[:300]}"
        if ctx.status != "failed":
            ctx.status = "failed"
        error = f"{error}; {lost}" if error else lost
    retry = await db.aconnect(url, autocommit=True)
    try:
        await runs.update_run(retry, ctx.settings, ctx.run_id, ctx.stats, ctx.status, error)
    finally:
        await retry.close()


@stage("scan")
async def scan(ctx: RunContext) -> list[Pending]:
    """The users with flagged user messages in the run's window (and how many messages each); those waiting
    out a failure's backoff are left for a later run (skipped_users["backoff"])."""
    async with ctx.pool.connection() as conn:
        pending = await pending_users(conn, ctx.settings, ctx.window)
    waiting = sum(p.waiting for p in pending)
    if waiting:
        ctx.stats.skipped_users["backoff"] += waiting
    return [p for p in pending if not p.waiting]


async def finished_slices(ctx: RunContext, backfill_key: str) -> set[datetime]:
    async with ctx.pool.connection() as conn:
        cur = await conn.execute(query(ctx.settings, "finished_slices"), {"backfill_key": backfill_key})
        return {row[0] for row in await cur.fetchall()}


async def record_slice(
    ctx: RunContext, backfill_key: str, start: datetime, end: datetime, pending: list[Pending]
) -> None:
    async with ctx.pool.connection() as conn:
        await conn.execute(
            query(ctx.settings, "record_slice"),
            {
                "backfill_key": backfill_key,
                "slice_start": start,
                "slice_end": end,
                "run_id": ctx.run_id,
                "users": len(pending),
                "messages": sum(p.messages for p in pending),
            },
        )


@stage("embed_missing")
async def embed_missing(ctx: RunContext) -> int:
    """Embed signals that have none yet (added by hand); returns how many."""
    async with ctx.pool.connection() as conn:
        usage = await embeddings.embed_missing(conn, ctx.settings)
    ctx.stats.embedding_calls += usage.calls
    ctx.stats.embedding_tokens += usage.tokens
    ctx.stats.cost_usd += usage.cost_usd
    return usage.signals


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


@dataclass(frozen=True)
class Shard:
    """The unit of work and of retry: users of one stable-hash bucket, at most shard_size of them."""

    number: int  # shard_of(user_id) of every user in it
    part: int  # which slice of the bucket (a bucket larger than shard_size is cut in parts)
    user_ids: tuple[str, ...]

    def to_params(self) -> dict:
        return {"number": self.number, "part": self.part, "user_ids": list(self.user_ids)}

    @classmethod
    def from_params(cls, params: dict) -> Shard:
        return cls(int(params["number"]), int(params["part"]), tuple(params["user_ids"]))


def shard_of(user_id: str, shards: int) -> int:
    """A user's shard: stable across runs, processes and machines (md5, not Python's salted hash)."""
    digest = hashlib.md5(user_id.encode(), usedforsecurity=False).digest()
    return int.from_bytes(digest[:4], "big") % shards


def shards(pending: list[Pending], settings: Settings) -> Iterator[Shard]:
    """The run's pending users by shard (AGENT_SIGNALS_SHARDS buckets), each cut in parts of at most
    AGENT_SIGNALS_SHARD_SIZE users."""
    buckets: dict[int, list[str]] = {}
    for p in pending:
        buckets.setdefault(shard_of(p.user_id, settings.shards), []).append(p.user_id)
    size = settings.shard_size
    for number in sorted(buckets):
        users = sorted(buckets[number])
        for part, start in enumerate(range(0, len(users), size)):
            yield Shard(number, part, tuple(users[start : start + size]))


@asynccontextmanager
async def join_run(spec: RunSpec) -> AsyncIterator[RunContext]:
    """A context for a shard of a run started elsewhere: its own pool and its own connection for the
    users' locks; its figures are returned to the run (merge), which alone writes the ledger."""
    settings = spec.settings
    url = db.database_url(settings)
    llm.register_offline(settings.offline_latency_ms / 1000, settings.embedding_model)
    ledger = await db.aconnect(url, autocommit=True)
    pool = _pool(url, settings, spec.run_id)
    ctx = RunContext(
        settings, spec.run_id, spec.kind, spec.window, spec.prompt_version, pool, ledger, runs.RunStats(),
        _pacing(settings), spec.dry_run, progress=_progress_listener, already_spent=spec.already_spent,
    )  # fmt: skip
    ctx.stop.pools.add(pool)
    try:
        await pool.open(wait=True)
        yield ctx
    finally:
        ctx.stop.pools.discard(pool)
        if ctx.stop.error is not None:  # for the run, wherever this shard ran
            ctx.stats.model_error = (ctx.stop.error.kind, ctx.stop.error.message, ctx.stop.error.hint)
        await pool.close()
        await ledger.close()


@dataclass
class Pacing:
    """What every shard processed in one process (and event loop) shares: the model's rate limits and
    the number of extractions in flight (AGENT_SIGNALS_CONCURRENCY), however many shards run at once.
    Across processes, AGENT_SIGNALS_PREFECT_RATE_LIMIT paces calls through Prefect."""

    limiter: llm.RateLimiter
    model_slots: asyncio.Semaphore


def _pacing(settings: Settings) -> Pacing:
    global _shared_pacing
    key = (settings.requests_per_minute, settings.tokens_per_minute, settings.concurrency,
           asyncio.get_running_loop())  # fmt: skip
    if _shared_pacing is None or _shared_pacing[0] != key:
        limiter = llm.RateLimiter(settings.requests_per_minute, settings.tokens_per_minute)
        _shared_pacing = (key, Pacing(limiter, asyncio.Semaphore(settings.concurrency)))
    return _shared_pacing[1]


_shared_pacing: tuple[tuple, Pacing] | None = None


async def run_shard(spec: RunSpec, shard: Shard) -> runs.RunStats:
    """Process one shard of a run (anywhere) and return its figures."""
    async with join_run(spec) as worker:
        await process_shard(worker, list(shard.user_ids))
    return worker.stats


async def record_shard_run(
    spec: RunSpec, batch: UUID, shard: Shard, stats: runs.RunStats, flow_run_id: UUID | None
) -> None:
    """A shard processed as its own flow run leaves its figures for the run that handed it out."""
    async with await db.aconnect(db.database_url(spec.settings), autocommit=True) as conn:
        await conn.execute(
            query(spec.settings, "record_shard_run"),
            {"run_id": spec.run_id, "batch": batch, "shard": shard.number, "part": shard.part,
             "flow_run_id": flow_run_id, "stats": Jsonb(stats.aggregates())},
        )  # fmt: skip


async def shard_run_stats(ctx: RunContext, batch: UUID) -> list[runs.RunStats]:
    """The figures one hand-out of shard flow runs left (see record_shard_run)."""
    async with ctx.pool.connection() as conn:
        cur = await conn.execute(
            query(ctx.settings, "shard_run_stats"), {"run_id": ctx.run_id, "batch": batch}
        )
        return [runs.RunStats.from_aggregates(stats) for _shard, _part, stats in await cur.fetchall()]


async def merge(ctx: RunContext, shard_stats: runs.RunStats) -> None:
    """Add a shard's figures to the run's and write the ledger (not for a dry run)."""
    ctx.stats.merge(shard_stats)
    if not ctx.dry_run and ctx.stop.signal is None:
        await runs.update_run(ctx.ledger, ctx.settings, ctx.run_id, ctx.stats)


@stage("process")
async def process_shard(ctx: RunContext, user_ids: list[str]) -> None:
    """Lock the shard's users against other runs (a user another run holds is skipped: still pending, it
    is picked up next time); load their batches; extract them concurrently (bounded); pass all their
    proposals through the quality gate as one batch; apply the users that passed; update the ledger."""
    if ctx.budget_exhausted or ctx.stop.stopped:
        ctx.stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += len(user_ids)
        return
    locked = await runs.lock_users(ctx.ledger, ctx.settings, user_ids)
    if len(locked) < len(user_ids):
        ctx.stats.skipped_users["busy"] += len(user_ids) - len(locked)
    try:
        await _process_locked(ctx, locked)
    finally:
        await runs.unlock_users(ctx.ledger, ctx.settings, locked)


async def _process_locked(ctx: RunContext, user_ids: list[str]) -> None:
    if not user_ids:
        return
    with timed(ctx, "process.load"):
        async with ctx.pool.connection() as conn:
            batches = await load_batches(conn, ctx.settings, user_ids, ctx.window)
    if ctx.rehearsal is not None:
        batches = [ctx.rehearsal.shown(batch) for batch in batches]
    slots = asyncio.Semaphore(ctx.settings.concurrency)  # this shard's writes (its pool's connections)
    started: dict[str, float] = {}
    with timed(ctx, "process.extract"):
        extracted = await asyncio.gather(*(extract_safely(ctx, batch, started) for batch in batches))
    ready = {batch.user_id: (batch, result) for batch, result in extracted if result is not None}
    with timed(ctx, "process.gate"):
        failing = await asyncio.to_thread(
            quality.gate_proposals, ctx.settings, {user_id: r.proposals for user_id, (_b, r) in ready.items()}
        )
    for user_id, reasons in failing.items():  # those candidates only: the user's others go on
        batch, result = ready[user_id]
        ready[user_id] = (batch, result.without(reasons, "gate"))
        ctx.stats.actions["rejected_gate"] += len(reasons)
    with timed(ctx, "process.embed"):
        passed = await embed_safely(ctx, ready)
    with timed(ctx, "process.apply"):
        await asyncio.gather(*(apply_safely(ctx, b, r, slots) for b, r in passed.values()))
    done = [b for b, _p in extracted if b.user_id in started]
    for batch in done:
        ctx.stats.note_duration(batch.user_id, time.monotonic() - started[batch.user_id])
    if ctx.progress:
        ctx.progress([b.user_id for b in done], sum(len(b.messages) for b in done))


@dataclass
class Extracted:
    proposals: list[Proposal]  # to write
    quarantine: list[tuple[Proposal, str]]  # to hold for review, with the reason
    rejected: list[Rejection] = field(default_factory=list)  # not written, recorded with the reason
    summary: str | None = None  # the user's summary after these proposals, when the answer gave one

    def without(self, reasons: dict[int, str], stage: str) -> Extracted:
        """These proposals (by index) rejected at `stage`; the answer's summary no longer describes the rest."""
        return Extracted(
            [p for i, p in enumerate(self.proposals) if i not in reasons],
            self.quarantine,
            [
                *self.rejected,
                *(Rejection.of(self.proposals[i], stage, r) for i, r in sorted(reasons.items())),
            ],
            None,
        )


class UserFailed(Exception):
    """A user's extraction call failed (the model's error, or an answer that cannot be parsed): nothing is
    written for the user and the failure is recorded with the messages that call read."""

    def __init__(
        self, stage: str, kind: str, message: str, read: list[SourceMessage], *, raw: str | None = None,
        counted: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.stage = stage
        self.kind = kind
        self.message = message
        self.read = read  # the messages of the failing call
        self.raw = raw  # the model's answer, when it could not be parsed
        self.counted = counted  # against the user (retries.py): not for a transient fault of the model


async def extract_user(ctx: RunContext, batch: UserBatch) -> Extracted:
    """Model call(s) for one user, validation and screening of each action. Raises UserFailed."""
    stats = ctx.stats
    proposals: list[Proposal] = []
    rejected: list[Rejection] = []
    calls = build_calls(batch, ctx.settings, ctx.until.date())
    summary = None
    hidden = sum(1 for m in batch.messages if m.hidden)
    if hidden:  # read without their invisible characters (text.clean); counted so that a run shows it
        stats.actions["messages_hidden_text"] += hidden
    for call in calls:
        for cut in call.cut:
            stats.actions["messages_cut"] += 1
            stats.warnings.append(
                f"message {cut.message.message_id} of conversation {cut.message.conversation_id} (user "
                f"{batch.user_id}): only its first {cut.kept} of {cut.length} characters were read, the "
                "part that fits in AGENT_SIGNALS_MAX_PROMPT_TOKENS"
            )
            log.warning(stats.warnings[-1])
        read = list(call.messages.values())
        try:
            completion = await complete(ctx, call.prompt, "extract")
        except llm.ModelUnavailable as exc:  # transient faults are the model's, the others this prompt's
            counted = exc.kind not in TRANSIENT_MODEL_FAULTS
            raise UserFailed("extract", exc.kind, str(exc), read, counted=counted) from exc
        try:
            answer = parse_extract_actions(completion.text)
        except InvalidAnswer as exc:
            raise UserFailed("validate", "invalid_answer", exc.reason, read, raw=exc.raw) from None
        validated = validate_answer(answer, call, ctx.settings)
        if validated.skips:
            stats.actions["skipped"] += validated.skips
        if validated.rejected:
            stats.actions["rejected_invalid"] += len(validated.rejected)
        proposals.extend(validated.proposals)
        rejected.extend(validated.rejected)
        summary = answer.summary
    keep_special = ctx.settings.special_categories == "keep"
    screened = screen(proposals, batch.known, keep_special=keep_special)
    stats.actions.update(screened.rejected)
    rejected.extend(
        Rejection.of(p, "screen", reason, withhold=withhold) for p, reason, withhold in screened.dropped
    )
    # the answer's summary is kept only when it can describe exactly what gets written: one call, every
    # candidate passed validation and screening, and the summary itself passes (apply checks the rest). A
    # refused summary is left to the summarize stage, which writes it from the stored signals.
    clean = len(calls) == 1 and not rejected and not screened.quarantine and ctx.settings.summaries
    refused = clean and summary is not None and screen_text(summary, keep_special=keep_special) is not None
    if refused:
        stats.actions["summary_refused"] += 1
    if not clean or refused:
        summary = None
    return Extracted(screened.keep, screened.quarantine, rejected, summary)


EMBED_BATCH = 256  # texts per embedding call


async def embed_safely(
    ctx: RunContext, ready: dict[str, tuple[UserBatch, Extracted]]
) -> dict[str, tuple[UserBatch, Extracted]]:
    """Embed the proposals of all the batch's users in as few calls as possible (EMBED_BATCH texts each,
    none when there is nothing to write). Never raises: the users of a failed call are recorded and left
    out (retried next run); the others are returned with their proposals embedded."""
    texts = [(user_id, i, p.content) for user_id, (_b, e) in ready.items() for i, p in enumerate(e.proposals)]
    vectors: dict[tuple[str, int], tuple[float, ...]] = {}
    failed: set[str] = set()
    for start in range(0, len(texts), EMBED_BATCH):
        chunk = texts[start : start + EMBED_BATCH]
        try:
            result = await llm.embed([text for _u, _i, text in chunk], ctx.settings)
        except llm.ModelMisconfigured as exc:
            ctx.halt(exc)
            return {}
        except llm.ModelUnavailable as exc:
            for user_id in sorted({u for u, _i, _t in chunk} - failed):
                failed.add(user_id)
                await _fail(ctx, user_id, "embed", exc.kind, str(exc))  # the embedding model's: not counted
            continue
        ctx.stats.embedding_calls += 1
        ctx.stats.embedding_tokens += result.prompt_tokens
        ctx.stats.cost_usd += result.cost_usd
        for (user_id, i, _t), vector in zip(chunk, result.vectors, strict=True):
            vectors[user_id, i] = tuple(vector)
    return {
        user_id: (batch, replace(extracted, proposals=[
            replace(p, embedding=vectors[user_id, i]) for i, p in enumerate(extracted.proposals)
        ]))
        for user_id, (batch, extracted) in ready.items()
        if user_id not in failed
    }  # fmt: skip


async def complete(ctx: RunContext, prompt: list[dict], purpose: str) -> llm.Completion:
    """One model call of this run, paced by the run's rate limits and counted in its figures."""
    await ctx.pacing.limiter.acquire(llm.estimate_tokens(prompt) + ctx.settings.max_answer_tokens // 4)
    if ctx.settings.prefect_rate_limit:  # one pace for every process and worker of the deployment
        from prefect.concurrency.asyncio import rate_limit

        await rate_limit(ctx.settings.prefect_rate_limit, occupy=1)
    try:
        completion = await _first_call_alone(ctx, prompt, purpose)
    except llm.TruncatedAnswer as exc:  # answers cut at max_tokens cost tokens too
        _count_call(ctx, purpose, exc.spent)
        raise
    _count_call(ctx, purpose, completion)
    return completion


def _count_call(ctx: RunContext, purpose: str, completion: llm.Completion) -> None:
    stats = ctx.stats
    stats.llm_calls += 1
    stats.llm_calls_by_purpose[purpose] += 1
    stats.prompt_tokens += completion.prompt_tokens
    stats.cached_prompt_tokens += completion.cached_prompt_tokens
    stats.completion_tokens += completion.completion_tokens
    stats.cost_usd += completion.cost_usd


async def _first_call_alone(ctx: RunContext, prompt: list[dict], family: str) -> llm.Completion:
    """The run's first model call goes alone (the others wait for its outcome): a misconfigured model costs
    one request, not one per call in flight."""
    stop = ctx.stop
    if stop.model_answered:
        return await llm.complete(prompt, ctx.settings, family=family)
    async with stop.first_call:
        if stop.error is not None:
            raise stop.error
        if stop.model_answered:
            return await llm.complete(prompt, ctx.settings, family=family)
        try:
            completion = await llm.complete(prompt, ctx.settings, family=family)
        except llm.ModelMisconfigured:
            raise
        except BaseException:
            stop.model_answered = True
            raise
        stop.model_answered = True
        return completion


def reconciler(ctx: RunContext) -> Decide:
    """The reconciliation call of this run: made only when a user's write crosses the core cap, between the
    rolled-back transaction that found it and the one that writes its plan (none open, no lock held)."""

    async def decide(core: list[CoreLine], own: list[CoreLine], cap: int) -> ReconcileAnswer:
        try:
            completion = await complete(
                ctx, render_reconcile(ctx.settings, core, own, cap, ctx.until.date()), "reconcile"
            )
        except llm.ModelMisconfigured as exc:  # the cap rule still holds the cap for this user
            ctx.halt(exc)
            raise
        return parse_reconcile_answer(completion.text)

    return decide


async def extract_safely(
    ctx: RunContext, batch: UserBatch, started: dict[str, float]
) -> tuple[UserBatch, Extracted | None]:
    """Never raises: a user whose extraction failed is recorded (None) and retried next run. Once the
    budget is spent, users not yet started are skipped (None): still pending, the next run takes them."""
    async with ctx.pacing.model_slots:
        stats = ctx.stats
        if ctx.budget_exhausted or ctx.stop.stopped:
            stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += 1
            return batch, None
        started[batch.user_id] = time.monotonic()
        stats.note_user(batch.user_id)
        stats.messages += len(batch.messages)
        stats.conversations += len({m.conversation_id for m in batch.messages})
        try:
            return batch, await extract_user(ctx, batch)
        except llm.ModelMisconfigured as exc:  # not this user's fault: no failure recorded, still pending
            stats.users -= 1
            stats.messages -= len(batch.messages)
            stats.conversations -= len({m.conversation_id for m in batch.messages})
            stats.skipped_users["stopped"] += 1
            ctx.halt(exc)
        except UserFailed as exc:
            await _fail(ctx, batch.user_id, exc.stage, exc.kind, exc.message, exc.raw, read=exc.read,
                        counted=exc.counted)  # fmt: skip
        except Exception as exc:  # a bug: this user only
            log.exception("user %s failed at extract", batch.user_id)
            await _fail(ctx, batch.user_id, "extract", type(exc).__name__, str(exc), read=batch.messages,
                        counted=True)  # fmt: skip
        return batch, None


async def apply_safely(
    ctx: RunContext, batch: UserBatch, extracted: Extracted, slots: asyncio.Semaphore
) -> None:
    """Never raises: one transaction for the user; a failure leaves nothing of it and is recorded."""
    async with slots:
        if ctx.stop.signal is not None:
            return  # interrupted: no new write
        try:
            async with ctx.pool.connection() as conn:
                counts = await apply_user(
                    conn,
                    ctx.settings,
                    batch.user_id,
                    extracted.proposals,
                    batch.messages,
                    ctx.provenance,
                    quarantine=extracted.quarantine,
                    rejected=extracted.rejected,
                    summary=extracted.summary,
                    decide=reconciler(ctx),
                    at=ctx.until,
                    dry_run=ctx.dry_run and ctx.rehearsal is None,  # a rehearsal rolls back after reading
                    around=functools.partial(_rehearsed, ctx, conn, batch.user_id),
                )
            ctx.stats.actions.update(counts)
        except Exception as exc:  # a database error while applying, or a bug: this user only
            log.exception("user %s failed at apply", batch.user_id)
            # a lost connection is the database's fault; anything else may be this user's data every time
            await _fail(ctx, batch.user_id, "apply", type(exc).__name__, str(exc), read=batch.messages,
                        counted=not isinstance(exc, psycopg.OperationalError))  # fmt: skip


@asynccontextmanager
async def _rehearsed(ctx: RunContext, conn: psycopg.AsyncConnection, user_id: str) -> AsyncIterator[None]:
    """Around each of apply's transactions for one user (stages/apply.py's `around`): nothing in a run; in a
    replay, one transaction that is always rolled back, in which the rehearsal prepares the user's signals,
    apply writes (its own transaction is a savepoint of this one) and the rehearsal reads what apply wrote.
    Only a dry run rehearses (it writes no ledger row and no failure)."""
    if ctx.rehearsal is None:
        yield
        return
    assert ctx.dry_run, "only a dry run rehearses"
    async with conn.transaction(force_rollback=True):
        await ctx.rehearsal.before_apply(conn, user_id)
        yield
        await ctx.rehearsal.after_apply(conn, user_id)


async def _fail(
    ctx: RunContext, user_id: str, stage: str, kind: str, message: str, raw: str | None = None, *,
    read: list[SourceMessage] | tuple[()] = (), counted: bool = False,
) -> None:  # fmt: skip
    """Record a user's failure (redacted; runs.record_failure): `counted` ones delay the user's next attempt
    and, after the last attempt allowed, set aside the messages the failed calls kept reading."""
    ctx.stats.failures += 1
    ctx.stats.failure_reasons[f"{stage}/{kind}"] += 1
    log.warning("user %s: %s failed (%s): %s", user_id, stage, kind, redact(message)[:300])
    if ctx.dry_run:
        return  # a dry run writes nothing, failures included
    try:
        async with ctx.pool.connection() as conn:
            recorded = await runs.record_failure(
                conn,
                ctx.settings,
                run_id=ctx.run_id,
                user_id=user_id,
                stage=stage,
                error_kind=kind,
                message=message,
                raw_answer=raw,
                read=[(m.conversation_id, m.message_id) for m in read],
                counted=counted,
            )
    except Exception:  # the database itself is gone: the user is still pending and retried next run
        log.exception("could not record the failure of user %s", user_id)
        return
    if recorded.set_aside:
        ctx.stats.actions["messages_set_aside"] += recorded.set_aside
        log.warning(
            "user %s: %d message(s) set aside after %d failed attempts (`agent-signals set-aside list`); "
            "their other messages are read again", user_id, recorded.set_aside, recorded.attempt,
        )  # fmt: skip
