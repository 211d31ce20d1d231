"""A run stopped by SIGINT or SIGTERM, the same way wherever it runs: `agent-signals run` and `backfill` (the
CLI's listener), or a deployment's flow run in a process of its own (`serve`, a worker: exit_process). The
run's writes in flight are cut off (their transactions roll back: those users stay pending), its row in
ops.runs says `interrupted` with what it committed (read from the database: users, conversations, actions,
failures, backfill slices), then the listener says so in one line (`line`) and ends the process."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from uuid import UUID

from agent_signals.adapters import structured
from agent_signals.stages.run import workers
from agent_signals.stages.run.context import RunContext
from agent_signals.store import database
from agent_signals.store.ledger import runs

Listener = Callable[[int, dict | None], None]


class Signals:
    """SIGINT and SIGTERM handlers of one run's life (installed only when it has a listener); closing puts
    back the handlers they replaced (a flow run's engine has its own)."""

    CAUGHT = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop
        self.previous = {signum: signal.getsignal(signum) for signum in self.CAUGHT} if loop else {}

    def close(self) -> None:
        if self.loop is None:
            return
        for signum in self.CAUGHT:
            self.loop.remove_signal_handler(signum)
            if self.previous[signum] is not None:
                signal.signal(signum, self.previous[signum])


def catch(ctx: RunContext, url: str, recorded: Callable[[], bool]) -> Signals:
    """Stop the run on SIGINT or SIGTERM when it has a listener (`recorded`: whether its row exists yet)."""
    listener = ctx.listeners.interrupted
    if listener is None:
        return Signals()
    loop = asyncio.get_running_loop()
    signals = Signals(loop)

    def caught(signum: int) -> None:
        if ctx.stop.signal is None:
            ctx.stop.signal = signum  # no new user, no new write from here on
            ctx.stop.interrupting = loop.create_task(_interrupted(ctx, url, signum, recorded(), listener))

    for signum in Signals.CAUGHT:
        loop.add_signal_handler(signum, caught, signum)
    return signals


async def _interrupted(ctx: RunContext, url: str, signum: int, recorded: bool, listener: Listener) -> None:
    """Cut off the run's writes in flight (their transactions roll back: those users stay pending), then
    write its ledger row from what it committed, then hand over to the listener, which ends the process."""
    logging.disable(logging.CRITICAL)  # what follows is the run coming apart: one line says it
    for pool in list(ctx.stop.pools):
        await pool.close(timeout=0)
    if ctx.dry_run or not recorded:
        listener(signum, None)
        return
    summary = None
    try:
        async with await database.aconnect(url, autocommit=True) as conn:
            await runs.end_sessions(conn, application_name(ctx.run_id))
            committed = await runs.committed_by_run(conn, ctx.run_id)
            # a snapshot: shards still finishing in this loop go on adding to ctx.stats while we write
            stats = replace(
                ctx.stats, users=max(committed.users, len(ctx.stop.finished)),
                conversations=committed.conversations, actions=Counter(committed.actions),
                failures=committed.failures,
            )  # fmt: skip
            reason = f"interrupted by {signal.Signals(signum).name}"
            await runs.update_run(conn, ctx.run_id, stats, "interrupted", reason)
        summary = _summary(ctx, stats, finished={"slices": committed.slices, "changed": committed.users})
    except Exception as exc:  # the database is gone too: the row stays `running` (the next run abandons it)
        summary = _summary(ctx, replace(ctx.stats, users=len(ctx.stop.finished)), unrecorded=_one_line(exc))
    finally:
        listener(signum, summary)


def _summary(ctx: RunContext, stats: runs.RunStats, **more) -> dict:
    ctx.status = "interrupted"  # whatever the unwinding run set meanwhile
    return (
        stats.summary(ctx.run_id, ctx.kind, ctx.status, ctx.dry_run, structured.answer_mode(ctx.settings))
        | more
    )


def application_name(run_id: UUID) -> str:
    """The name of the run's database sessions (its pools'): an interrupt ends them."""
    return f"agent-signals run {run_id}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def line(summary: dict | None) -> str:
    """What an interrupted run says: what it committed (a backfill: the slices and users it finished, and
    those it found nothing new for), or that it could not record it."""
    if summary is None:
        return "interrupted: nothing was written"
    run = f"run {summary['run_id']}"
    if "unrecorded" in summary:
        return (
            f"interrupted: {run} could not record what it committed ({summary['unrecorded']}); the next run "
            "marks it abandoned and finishes the rest"
        )
    if summary["kind"] == "backfill":
        finished = summary["finished"]
        nothing_new = max(summary["users"] - finished["changed"], 0)
        return (
            f"interrupted: backfill {run} finished {finished['slices']} slice(s) and {summary['users']} "
            f"user(s), {nothing_new} of them with nothing new; the same backfill again skips the finished "
            "slices"
        )
    return f"interrupted: {summary['users']} user(s) committed by {run}, the next run finishes the rest"


def exit_process(signum: int, summary: dict | None, before_exit: Callable[[], None] | None = None) -> None:
    """The listener of a run that has its process to itself (a deployment's flow run; the CLI's adds
    `before_exit`): say it in one line and end the process now, exit 128 + the signal's number (Prefect
    records the flow run as crashed or, when it asked for the stop, cancelled; the run's row says
    `interrupted`)."""
    print(line(summary), file=sys.stderr)
    if before_exit is not None:
        before_exit()
    sys.stdout.flush()
    sys.stderr.flush()
    workers.stop_now()
    os._exit(128 + signum)
