"""Shards, the unit of work and of retry: the run's pending users cut by a stable hash (Shard, shard_of,
shards), one shard processed anywhere (run_shard: in this process, a Dask worker or its own flow run) and
its figures added to the run's (merge, record_shard_run, shard_run_stats). process_shard is the per-shard
path of a user's data: lock the users -> load -> extract -> validate -> quality gate -> embed -> apply."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from uuid import UUID

from agent_signals.adapters import expectations
from agent_signals.config import Settings
from agent_signals.core.actions import Count
from agent_signals.stages.apply_safely import apply_safely
from agent_signals.stages.extract import conclude, embed_safely, extract_safely, proposals_frame
from agent_signals.stages.run import batches
from agent_signals.stages.run.context import RunContext, RunSpec, cut_off, stage, stopped, timed
from agent_signals.stages.run.lifecycle import join_run
from agent_signals.store import database
from agent_signals.store.ledger import runs
from agent_signals.store.source import Pending, load_shard


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
        buckets.setdefault(shard_of(p.user_id, settings.run.shards), []).append(p.user_id)
    size = settings.run.shard_size
    for number in sorted(buckets):
        users = sorted(buckets[number])
        for part, start in enumerate(range(0, len(users), size)):
            yield Shard(number, part, tuple(users[start : start + size]))


async def run_shard(spec: RunSpec, shard: Shard) -> runs.RunStats:
    """Process one shard of a run (anywhere) and return its figures. A shard that cannot reach the database
    (one attempt to connect) leaves its users pending and the reason in its figures: the run stops."""
    if stopped(spec.run_id):  # the run stopped in this process: nothing new (not even a connection)
        return _untouched(shard, "stopped")
    try:
        async with join_run(spec) as worker:
            await process_shard(worker, list(shard.user_ids))
    except database.DatabaseUnavailable as exc:  # raised by the shard's first connection, before any work
        stats = _untouched(shard, "database")
        stats.database_lost = exc.message
        return stats
    return worker.stats


def _untouched(shard: Shard, why: str) -> runs.RunStats:
    stats = runs.RunStats()
    stats.skipped_users[why] += len(shard.user_ids)
    return stats


async def record_shard_run(
    spec: RunSpec, batch: UUID, shard: Shard, stats: runs.RunStats, flow_run_id: UUID | None
) -> None:
    """A shard processed as its own flow run leaves its figures for the run that handed it out."""
    async with await database.aconnect(database.database_url(spec.settings), autocommit=True) as conn:
        await runs.record_shard_run(
            conn, run_id=spec.run_id, batch=batch, shard=shard.number, part=shard.part,
            flow_run_id=flow_run_id, stats=stats,
        )  # fmt: skip


async def shard_run_stats(ctx: RunContext, batch: UUID) -> list[runs.RunStats]:
    """The figures one hand-out of shard flow runs left (see record_shard_run)."""
    async with ctx.pool.connection() as conn:
        return await runs.shard_run_stats(conn, ctx.run_id, batch)


async def merge(ctx: RunContext, shard_stats: runs.RunStats) -> None:
    """Add a shard's figures to the run's, write the ledger (not for a dry run) and tell the run's progress
    listener which users the shard attempted."""
    ctx.stats.merge(shard_stats)
    if ctx.listeners.progress and shard_stats.user_ids:
        ctx.listeners.progress(sorted(shard_stats.user_ids), shard_stats.messages)
    if not ctx.dry_run and not ctx.stop.cut:
        try:
            await runs.update_run(ctx.ledger, ctx.run_id, ctx.stats)
        except Exception as exc:
            if not await cut_off(ctx, exc):
                raise


@stage("process")
async def process_shard(ctx: RunContext, user_ids: list[str]) -> None:
    """Lock the shard's users against other runs (a user another run holds is skipped: still pending, it
    is picked up next time); load their messages; extract them concurrently (bounded); pass all their
    proposals through the quality gate as one batch; apply the users that passed; update the ledger."""
    if ctx.budget_exhausted or ctx.stop.stopped:
        ctx.stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += len(user_ids)
        return
    locked: list[str] = []
    try:
        locked = await runs.lock_users(ctx.ledger, user_ids)
        if len(locked) < len(user_ids):
            ctx.stats.skipped_users["busy"] += len(user_ids) - len(locked)
        await _process_locked(ctx, locked)
        await runs.unlock_users(ctx.ledger, locked)
    except Exception as exc:  # a lost connection ends the shard here (its locks go with its session)
        if not await cut_off(ctx, exc):
            if locked and not ctx.stop.database:
                await runs.unlock_users(ctx.ledger, locked)
            raise


async def _process_locked(ctx: RunContext, user_ids: list[str]) -> None:
    if not user_ids:
        return
    split = await batches.split(ctx, user_ids)  # users out in a provider batch are left alone
    ctx.workers.begin()  # the worker processes start while the users' messages load
    with timed(ctx, "process.load"):
        async with ctx.pool.connection() as conn:
            user_messages = (await load_shard(conn, ctx.settings, split.free, ctx.window)).user_messages()
    if ctx.rehearsal is not None:
        user_messages = [ctx.rehearsal.shown(user) for user in user_messages]
    started: dict[str, float] = {}
    with timed(ctx, "process.extract"):
        if batches.batching(ctx):  # sent in a provider batch; applied by the run that collects the answers
            extracted = await batches.submit(ctx, user_messages)
        else:
            extracted = await asyncio.gather(*(extract_safely(ctx, user, started) for user in user_messages))
    if split.answered:
        with timed(ctx, "process.collect"):
            extracted = [*extracted, *await batches.collect(ctx, split.answered)]
    with timed(ctx, "process.screen"):
        ready = await conclude(ctx, extracted)
    with timed(ctx, "process.gate"):
        failing = await asyncio.to_thread(expectations.gate_proposals, ctx.settings, proposals_frame(ready))
    for user_id, reasons in failing.items():  # those candidates only: the user's others go on
        ready[user_id].reject(reasons, "gate", Count.REJECTED_GATE)
    with timed(ctx, "process.embed"):
        passed = await embed_safely(ctx, ready)
    with timed(ctx, "process.apply"):
        await apply_safely(ctx, list(passed.values()))
    done = [b for b in user_messages if b.user_id in started]
    for user in done:
        ctx.stats.note_duration(user.user_id, time.monotonic() - started[user.user_id])
