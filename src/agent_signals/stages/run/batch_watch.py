"""Provider batch mode, the run's side (stages/run/batches.py is a shard's): before the scan, what the provider
did with every batch still out (poll); the users waiting in a batch that ended, added to the scan's
(with_answered); after the shards, the wait for the batches this run sent (AGENT_SIGNALS_BATCH_WAIT_S) and
the batches whose every request was closed marked collected (settle).

A batch a dead run created and never recorded is found again by its key, or abandoned; a batch or output
file the provider no longer knows gives its users back; a batch out longer than
AGENT_SIGNALS_BATCH_WARN_AGE_S is a warning."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from uuid import UUID

import psycopg

from agent_signals.adapters import llm, provider_batches
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.run.batches import asked_with, batch_aware, batching, warn
from agent_signals.stages.run.context import RunContext, raise_if_stopped, timed
from agent_signals.store.ledger import batch_ledger
from agent_signals.store.source import Pending

log = redacting_logger(__name__)

FIND_MARGIN = timedelta(minutes=10)  # clocks of ours and the provider's may disagree this much


async def poll(ctx: RunContext) -> None:
    """What the provider did with every batch still out: ended ones recorded (their answers are collected by
    the shards), lost ones abandoned (their users pending again), old ones a warning."""
    if not batch_aware(ctx):
        return
    if batching(ctx):  # before any user is touched: a provider this mode cannot send to stops the run
        try:
            provider_batches.check_provider(ctx.settings)
        except llm.ModelMisconfigured as exc:
            ctx.halt(exc)
            raise_if_stopped(ctx)
    with timed(ctx, "batches.poll"):
        async with ctx.pool.connection() as conn:
            for batch in await batch_ledger.open_batches(conn):
                try:
                    await _poll_one(ctx, conn, batch)
                except llm.ModelMisconfigured as exc:
                    ctx.halt(exc)
                    return
                except llm.ModelUnavailable as exc:  # asked again next run
                    warn(ctx, f"batch {batch.batch_key}: the provider could not be asked about it: {exc}")
            await batch_ledger.mark_collected(conn)


async def _poll_one(ctx: RunContext, conn: psycopg.AsyncConnection, batch: batch_ledger.OpenBatch) -> None:
    settings = asked_with(ctx.settings, batch.model)
    provider_id = batch.provider_batch_id
    if batch.status == "preparing":
        if batch.run_running:
            return  # another run is sending it now
        found = await provider_batches.find(settings, str(batch.batch_key), batch.created_at - FIND_MARGIN)
        if found is None:
            await batch_ledger.give_up(conn, batch.batch_key, "abandoned",
                                 "the run that prepared it ended before the provider had it", ctx.run_id)  # fmt: skip
            ctx.stats.batches["abandoned"] += 1
            return
        await batch_ledger.submitted(conn, batch.batch_key, found.batch_id, found.status)
        ctx.stats.batches["adopted"] += 1
        log.warning("batch %s: found at the provider as %s and recorded", batch.batch_key, found.batch_id)
        provider_id = found.batch_id
    if batch.status in ("preparing", "submitted"):
        assert provider_id is not None
        try:
            status = await provider_batches.retrieve(settings, provider_id)
        except llm.ModelMisconfigured as exc:
            if exc.kind != "not_found":
                raise
            await batch_ledger.give_up(conn, batch.batch_key, "abandoned",
                                 f"the provider no longer knows batch {provider_id}", ctx.run_id)  # fmt: skip
            ctx.stats.batches["abandoned"] += 1
            warn(ctx, f"batch {batch.batch_key} ({provider_id}): the provider no longer knows it; its users are "
                      "sent again")  # fmt: skip
            return
        if status.ended:
            await batch_ledger.ended(
                conn, batch.batch_key, provider_status=status.status,
                output_file_id=status.output_file_id, error_file_id=status.error_file_id,
                answered=status.completed, failed=status.failed, error=status.error,
            )  # fmt: skip
            if status.status != "completed":
                warn(ctx, f"batch {batch.batch_key} ({provider_id}) ended {status.status}: its unanswered "
                           "users are asked again" + (f" ({status.error})" if status.error else ""))  # fmt: skip
            return
        await batch_ledger.seen(conn, batch.batch_key, status.status)
        age = datetime.now(UTC) - (batch.submitted_at or batch.created_at)
        if age.total_seconds() > ctx.settings.batch.warn_age_s:
            warn(ctx, f"batch {batch.batch_key} ({provider_id}) has been out for {age.total_seconds() / 3600:.1f} h "
                       f"(AGENT_SIGNALS_BATCH_WARN_AGE_S={ctx.settings.batch.warn_age_s:g}): the provider says "
                       f"{status.status}; `agent-signals batches cancel {batch.batch_key}` gives its users back")  # fmt: skip


async def wait(ctx: RunContext) -> list[Pending]:
    """Wait up to AGENT_SIGNALS_BATCH_WAIT_S for the batches this run sent; returns the users of those that
    ended meanwhile (the run collects them now)."""
    if not batching(ctx) or ctx.settings.batch.wait_s <= 0:
        return []
    deadline = time.monotonic() + ctx.settings.batch.wait_s

    async def still_out() -> set[UUID]:  # a connection only while asking: none is held while sleeping
        async with ctx.pool.connection() as conn:
            return set(await batch_ledger.run_batches(conn, ctx.run_id))

    sent = out = await still_out()
    with timed(ctx, "batches.wait"):
        while out and not ctx.stop.stopped and (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(ctx.settings.batch.poll_s, left))
            await poll(ctx)
            out = await still_out()
    async with ctx.pool.connection() as conn:
        return [Pending(u, 0) for u in await batch_ledger.users_waiting_in(conn, list(sent - out))]


async def with_answered(ctx: RunContext, pending: list[Pending]) -> list[Pending]:
    """The scan's pending users and those waiting in a batch that ended, pending or not (a user whose
    conversations were deleted or unflagged since is still collected: their requests close, their batch too)."""
    if not batch_aware(ctx):
        return pending
    async with ctx.pool.connection() as conn:  # ids only: the shards load what each user's requests showed
        batches = await batch_ledger.open_batches(conn)
        ended = [b.batch_key for b in batches if b.status == "ended" and b.purpose == "extract"]
        users = await batch_ledger.users_waiting_in(conn, ended) if ended else []
    known = {p.user_id for p in pending}
    return [*pending, *(Pending(u, 0) for u in users if u not in known)]


async def settle(ctx: RunContext) -> None:
    """The batches whose every request the run's shards closed are `collected`."""
    if batch_aware(ctx):
        async with ctx.pool.connection() as conn:
            await batch_ledger.mark_collected(conn)
