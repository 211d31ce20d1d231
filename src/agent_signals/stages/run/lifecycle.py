"""A run's life: open_run checks the schema, records the run in ops.runs (with its session lock), opens its
pool and, on exit, writes its final ledger row (on a new connection if the database dropped the ledger's:
a run that lost its database ends `failed`, with DatabaseLost); join_run gives a shard of a run started
elsewhere its own context; a SIGINT or SIGTERM (when the run has a listener: interrupts.py) cuts the run's
writes off and leaves an honest `interrupted` row."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from uuid import UUID, uuid4

from psycopg_pool import AsyncConnectionPool

from agent_signals.adapters import llm, providers, structured
from agent_signals.config import Settings
from agent_signals.core.prompting.extract_calls import prompt_version
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.run import interrupts, workers
from agent_signals.stages.run.context import (
    RunContext,
    RunListeners,
    RunSpec,
    cut_off,
    database_lost,
    forget_stop,
    raise_if_stopped,
    shared_pacing,
)
from agent_signals.store import database
from agent_signals.store.ledger import runs
from agent_signals.store.schema.migrate import check_current
from agent_signals.store.source import Window

log = redacting_logger(__name__)
POOL_SHARE_OF_FREE = 0.75  # of the server's free connections, what one run's pool may take
POOL_MIN = 2


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
    url = database.database_url(settings)
    with database.session(settings) as conn:
        check_current(conn, settings)
    providers.register_offline(settings, settings.model.offline_latency_ms / 1000)
    window = window or Window(until=datetime.now(UTC))
    ledger = await database.aconnect(url, autocommit=True)
    run_id = uuid4()
    pool = _pool(url, settings, run_id, await runs.free_connections(ledger))
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
    failure: BaseException | None = None
    ctx.stop.pools.add(pool)
    recorded = False
    signals = interrupts.catch(ctx, url, lambda: recorded)
    try:
        if not dry_run:
            abandoned = await runs.abandon_dead_runs(ledger)
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
        failure = exc
        ctx.status = "failed"
        await cut_off(ctx, exc)  # a lost connection, wherever it surfaced, is said as one
        error = _ledger_error(ctx, exc)
    finally:
        if ctx.stop.interrupting is not None:  # the run came apart because it was interrupted
            await ctx.stop.interrupting  # ends the process
        try:
            if recorded and ctx.stop.signal is None:
                await _final_ledger_row(ctx, error)
        finally:
            signals.close()
            forget_stop(ctx.run_id)
            workers.close_shared()
            await pool.close()
            await ledger.close()
    if ctx.stop.database is not None and not isinstance(failure, database.DatabaseLost):
        raise database_lost(ctx) from failure  # however it surfaced, even in the final row's write
    if failure is not None:
        raise failure


def _ledger_error(ctx: RunContext, exc: BaseException) -> str:
    """The error of a failed run's row."""
    if ctx.stop.database is not None:
        error = f"database connection lost: {ctx.stop.database}"
    elif isinstance(exc, llm.ModelMisconfigured):
        error = exc.message
    else:
        error = f"{type(exc).__name__}: {exc}"
    return error[:2000]


def _pool(url: str, settings: Settings, run_id: UUID, free: int) -> AsyncConnectionPool:
    """A run's connections for its users' work, named after the run (an interrupt cuts them off): one per
    model call in flight and one more (a summary holds its connection while its call is out), but no more
    than pool_size allows of the `free` connections the server has left."""
    return AsyncConnectionPool(
        url, min_size=1, max_size=pool_size(settings.run.concurrency, free), open=False,
        kwargs={"autocommit": True, "application_name": interrupts.application_name(run_id)},
    )  # fmt: skip


def pool_size(concurrency: int, free: int) -> int:
    """A pool's largest size: concurrency + 1, within the server's free connections less a share kept for
    everything else (other runs, the views' refresh, people's queries). A smaller pool makes the users that
    write and the summaries wait for a connection; a pool larger than the server allows fails the run
    ("too many clients")."""
    wanted = concurrency + 1
    allowed = max(POOL_MIN, int(free * POOL_SHARE_OF_FREE))
    if allowed < wanted:
        log.info(
            "database pool capped at %d connections (the server has %d free; %d wanted)",
            allowed,
            free,
            wanted,
        )
    return min(wanted, allowed)


async def _final_ledger_row(ctx: RunContext, error: str | None) -> None:
    """Write the run's final row. If the database dropped the ledger's connection (a restart, a terminated
    backend, the server gone), the run is `failed` and its row is written on one new connection (the
    embedded server is started again if it stopped: database.restarted_url). When that fails too the row stays
    `running` and the next run marks it abandoned; the error raised says so."""
    if ctx.stop.database is None:
        try:
            await runs.update_run(ctx.ledger, ctx.run_id, ctx.stats, ctx.status, error)
            return
        except Exception as exc:
            if not await cut_off(ctx, exc):
                raise
        ctx.status = "failed"
        lost = f"database connection lost: {ctx.stop.database}"
        error = f"{error}; {lost}" if error else lost
    try:
        retry = await database.aconnect(database.restarted_url(ctx.settings), autocommit=True)
    except database.DatabaseUnavailable as exc:
        log.error("could not write the row of run %s: %s", ctx.run_id, exc.message)
        raise database.DatabaseLost(
            f"run {ctx.run_id} lost its database connection ({ctx.stop.database}) and could not reconnect to "
            f"record it: {exc.message}",
            hint="what it committed stays; once the database answers again, the next run marks this one "
            "abandoned and does the rest",
        ) from None
    async with retry:
        await runs.update_run(retry, ctx.run_id, ctx.stats, ctx.status, error)


@asynccontextmanager
async def join_run(spec: RunSpec) -> AsyncIterator[RunContext]:
    """A context for a shard of a run started elsewhere: its own pool and its own connection for the
    users' locks; its figures are returned to the run (merge), which alone writes the ledger."""
    settings = spec.settings
    url = database.database_url(settings)
    providers.register_offline(settings, settings.model.offline_latency_ms / 1000)
    ledger = await database.aconnect(url, autocommit=True)
    pool = _pool(url, settings, spec.run_id, await runs.free_connections(ledger))
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
