"""A run's life: open_run checks the schema, records the run in ops.runs (with its session lock), opens its
pool and, on exit, writes its final ledger row (on a new connection if the database dropped the ledger's);
join_run gives a shard of a run started elsewhere its own context; a SIGINT or SIGTERM (when the CLI asks
for it) cuts the run's writes off and leaves an honest `interrupted` row."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from uuid import UUID, uuid4

import psycopg
from psycopg_pool import AsyncConnectionPool

from agent_signals.adapters import llm, providers, structured
from agent_signals.config import Settings
from agent_signals.core.batching import prompt_version
from agent_signals.core.redaction import redacting_logger
from agent_signals.stages.context import (
    RunContext,
    RunListeners,
    RunSpec,
    forget_stop,
    raise_if_stopped,
    shared_pacing,
)
from agent_signals.store import db, runs
from agent_signals.store.migrate import check_current
from agent_signals.store.source import Window

log = redacting_logger(__name__)


@asynccontextmanager
async def open_run(
    settings: Settings,
    *,
    kind: str,
    flow_run_id: UUID | None = None,
    window: Window | None = None,
    dry_run: bool = False,
    parameters: dict | None = None,
    listeners: RunListeners | None = None,
) -> AsyncIterator[RunContext]:
    """Check the schema, record the run (not for a dry run), open the pool; on exit write the ledger.
    `listeners` (the CLI's) hear the run's progress and, when given `interrupted`, stop it on a signal."""
    url = db.database_url(settings)
    with db.session(settings) as conn:
        check_current(conn, settings)
    providers.register_offline(settings, settings.offline_latency_ms / 1000)
    window = window or Window(until=datetime.now(UTC))
    ledger = await db.aconnect(url, autocommit=True)
    run_id = uuid4()
    pool = _pool(url, settings, run_id)
    pacing = shared_pacing(settings)
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
        listeners=listeners or RunListeners(),
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
                answer_mode=structured.answer_mode(settings),
                parameters=parameters,
            )
            recorded = True
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
            forget_stop(ctx.run_id)
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
    listener = ctx.listeners.interrupted
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
            await runs.end_sessions(conn, settings, name)
            users, conversations, actions = await runs.committed_by_run(conn, settings, ctx.run_id)
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


@asynccontextmanager
async def join_run(spec: RunSpec) -> AsyncIterator[RunContext]:
    """A context for a shard of a run started elsewhere: its own pool and its own connection for the
    users' locks; its figures are returned to the run (merge), which alone writes the ledger."""
    settings = spec.settings
    url = db.database_url(settings)
    providers.register_offline(settings, settings.offline_latency_ms / 1000)
    ledger = await db.aconnect(url, autocommit=True)
    pool = _pool(url, settings, spec.run_id)
    ctx = RunContext(
        settings, spec.run_id, spec.kind, spec.window, spec.prompt_version, pool, ledger, runs.RunStats(),
        shared_pacing(settings), spec.dry_run, already_spent=spec.already_spent,
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
