"""The apply stage of a shard, user by user: each user's extracted proposals applied in one transaction of
their own (apply.apply_user), with the run's reconciliation call for a write that crosses the core cap, and
a replay's rehearsal around it (a dry run that rolls back); a failure leaves nothing of that user and is
recorded."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg

from agent_signals.adapters import llm
from agent_signals.core.answers import ReconcileAnswer, parse_reconcile_answer
from agent_signals.core.batching import UserBatch
from agent_signals.core.prompts import CoreLine, render_reconcile
from agent_signals.core.redaction import redacting_logger
from agent_signals.stages.apply import Finish, apply_user
from agent_signals.stages.calls import complete
from agent_signals.stages.context import RunContext
from agent_signals.stages.extract import Asked, Extracted
from agent_signals.stages.failures import fail
from agent_signals.stages.reconcile import Decide
from agent_signals.store import batches
from agent_signals.store.writer import Provenance

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
                    provenance(ctx, extracted),
                    quarantine=extracted.quarantine,
                    rejected=extracted.rejected,
                    summary=extracted.summary,
                    decide=reconciler(ctx),
                    at=ctx.until,
                    dry_run=ctx.dry_run and ctx.rehearsal is None,  # a rehearsal rolls back after reading
                    around=functools.partial(_rehearsed, ctx, conn, batch.user_id),
                    finish=_closing(ctx, batch.user_id, extracted.asked),
                )
            ctx.stats.actions.update(counts)
        except AlreadyApplied as exc:
            log.warning("%s", exc)
            ctx.stats.skipped_users["batch_applied_elsewhere"] += 1
        except Exception as exc:  # a database error while applying, or a bug: this user only
            log.exception("user %s failed at apply", batch.user_id)
            # a lost connection is the database's fault; anything else may be this user's data every time
            counted = not isinstance(exc, psycopg.OperationalError)
            await fail(ctx, batch.user_id, "apply", type(exc).__name__, str(exc), read=batch.messages,
                        counted=counted)  # fmt: skip
            if counted and extracted.asked is not None and not ctx.dry_run:  # asked again, not applied again
                async with ctx.pool.connection() as conn:
                    await batches.close_requests(
                        conn, ctx.settings, extracted.asked.batch_key, batch.user_id, "failed", ctx.run_id
                    )


def provenance(ctx: RunContext, extracted: Extracted) -> Provenance:
    """What the user's writes are recorded with: this run, and the model and prompt version that were asked
    (a provider batch's, when its answers were asked by an earlier run)."""
    if extracted.asked is None:
        return ctx.provenance
    return Provenance(ctx.run_id, extracted.asked.prompt_version, extracted.asked.model)


def _closing(ctx: RunContext, user_id: str, asked: Asked | None) -> Finish | None:
    """For answers read from a provider batch: the user's waiting requests closed `applied` in the transaction
    that writes them, so that a run killed before the commit leaves them waiting (the next run applies them)
    and one killed after never applies them again. Another run that closed them first rolls this one back."""
    if asked is None:
        return None

    async def close(conn: psycopg.AsyncConnection) -> None:
        if not await batches.close_requests(
            conn, ctx.settings, asked.batch_key, user_id, "applied", ctx.run_id
        ):
            raise AlreadyApplied(
                f"user {user_id}: the answers of batch {asked.batch_key} were applied by another run"
            )

    return close


class AlreadyApplied(Exception):
    """Another run applied these batch answers first (this write is rolled back)."""


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
