"""The apply stage of a shard: its users' extracted proposals applied together in one transaction
(apply.apply_users), with the run's reconciliation calls for users the write takes over the core cap, and a
replay's rehearsal around each user (a dry run that rolls back); a failure leaves nothing of the users it
touched, the group is halved until the failing user is found, recorded (counted against them only when the
error is theirs: failures.blames_user), and the others written. A lost connection stops the run instead:
nobody is blamed and the group stays pending."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from uuid import UUID

import psycopg

from agent_signals.adapters import llm
from agent_signals.core.outcome import UserOutcome
from agent_signals.core.prompting.answers import ReconcileAnswer, parse_reconcile_answer
from agent_signals.core.prompting.prompts import CoreLine, render_reconcile
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.apply import Finish, apply_users
from agent_signals.stages.reconcile import Decide
from agent_signals.stages.run.calls import complete
from agent_signals.stages.run.context import RunContext, cut_off
from agent_signals.stages.run.failures import blames_user, fail
from agent_signals.store.ledger import batch_ledger

log = redacting_logger(__name__)


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


async def apply_safely(ctx: RunContext, ready: Sequence[UserOutcome]) -> None:
    """Never raises: the shard's users written together (apply.apply_users: one transaction, one statement
    per table). A group that fails is split in halves and each half written again, down to one user, so a
    user whose rows the database refuses is isolated and recorded, and the others are written. A replay's
    rehearsal writes each user alone (its `around` is one user's)."""
    if ctx.rehearsal is not None:  # at most AGENT_SIGNALS_CONCURRENCY users at a time, as the pool allows
        slots = asyncio.Semaphore(ctx.settings.run.concurrency)

        async def alone(item: UserOutcome) -> None:
            async with slots:
                await _apply_group(ctx, [item])

        await asyncio.gather(*(alone(item) for item in ready))
    elif ready:
        await _apply_group(ctx, list(ready))


async def _apply_group(ctx: RunContext, group: list[UserOutcome]) -> None:
    if ctx.stop.cut:
        return  # interrupted, or the database is gone: no new write (these users stay pending)
    user_ids = [o.user_id for o in group]
    try:
        async with ctx.pool.connection() as conn:
            counts = await apply_users(
                conn,
                ctx.settings,
                group,
                decide=reconciler(ctx),
                at=ctx.until,
                dry_run=ctx.dry_run and ctx.rehearsal is None,  # a rehearsal rolls back after reading
                around=functools.partial(_rehearsed, ctx, conn, user_ids[0]) if ctx.rehearsal else None,
                finish=_closing(ctx, group),
            )
        for user_counts in counts.values():
            ctx.stats.actions.update(user_counts)
        if not ctx.dry_run:
            ctx.stop.finished.update(user_ids)
    except AlreadyApplied as exc:  # those users' answers were written by another run: the others again
        log.warning("%s", exc)
        ctx.stats.skipped_users["batch_applied_elsewhere"] += len(exc.user_ids)
        rest = [item for item in group if item.user_id not in exc.user_ids]
        if rest:
            await _apply_group(ctx, rest)
    except Exception as exc:  # a user's rows refused, or a bug: found by halving the group
        if await cut_off(ctx, exc):  # the connection lost (the run stops), or cut by an interrupt
            return
        if len(group) > 1:
            half = len(group) // 2
            await _apply_group(ctx, group[:half])
            await _apply_group(ctx, group[half:])
            return
        (o,) = group
        log.exception("user %s failed at apply", o.user_id)
        counted = blames_user(exc)
        await fail(ctx, o.user_id, "apply", type(exc).__name__, str(exc), read=o.read, counted=counted)
        # a batch answer that failed the user is asked again, not applied again; one the database refused
        # stays waiting: the next run applies it again (docs/batch.md)
        if o.batch_key is not None and counted and not ctx.dry_run:
            async with ctx.pool.connection() as conn:
                await batch_ledger.close_requests(conn, [(o.batch_key, o.user_id)], "failed", ctx.run_id)


def _closing(ctx: RunContext, group: list[UserOutcome]) -> Finish | None:
    """For answers read from a provider batch: the users' waiting requests closed `applied` in the
    transaction that writes them, so that a run killed before the commit leaves them waiting (the next run
    applies them) and one killed after never applies them again. Users whose requests another run closed
    first roll this write back (AlreadyApplied), and the others are written again without them."""
    pairs = [(o.batch_key, o.user_id) for o in group if o.batch_key is not None]
    if not pairs:
        return None

    async def close(conn: psycopg.AsyncConnection) -> None:  # one statement for the group's requests
        closed = await batch_ledger.close_requests(conn, pairs, "applied", ctx.run_id)
        if gone := [(user_id, key) for key, user_id in pairs if (key, user_id) not in closed]:
            raise AlreadyApplied(gone)

    return close


class AlreadyApplied(Exception):
    """Another run applied these users' batch answers first (this write is rolled back)."""

    def __init__(self, gone: list[tuple[str, UUID]]) -> None:
        super().__init__(
            "the answers of "
            + ", ".join(f"user {user_id} in batch {key}" for user_id, key in gone)
            + " were applied by another run"
        )
        self.user_ids = {user_id for user_id, _k in gone}


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
