"""The stages of one run as plain functions (flows/ only composes them; tests call them directly):
open a run, scan, then per shard: load -> extract -> validate -> apply, one user at a time per slot."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from uuid import UUID, uuid4

import psycopg
from psycopg_pool import AsyncConnectionPool

from agent_signals import db, embeddings, llm, quality, runs, summaries
from agent_signals.answers import InvalidAnswer, ReconcileAnswer, parse_extract_answer, parse_reconcile_answer
from agent_signals.apply import Provenance, apply_user
from agent_signals.config import Settings
from agent_signals.extract import UserBatch, build_calls, prompt_version
from agent_signals.migrate import check_current
from agent_signals.prompts import CoreLine, SummaryLine, render_reconcile, render_summarize
from agent_signals.reconcile import Decide
from agent_signals.source import load_batches, pending_users
from agent_signals.sqlfiles import query
from agent_signals.validate import Proposal, validate_answer

log = logging.getLogger(__name__)


@dataclass
class RunContext:
    settings: Settings
    run_id: UUID
    kind: str
    until: datetime
    prompt_version: str
    pool: AsyncConnectionPool
    ledger: psycopg.AsyncConnection
    stats: runs.RunStats
    status: str = "running"

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.run_id, self.prompt_version, self.settings.model)

    def summary(self) -> dict:
        s = self.stats
        return {
            "run_id": str(self.run_id),
            "kind": self.kind,
            "status": self.status,
            "users": s.users,
            "conversations": s.conversations,
            "messages": s.messages,
            "actions": dict(sorted(s.actions.items())),
            "llm_calls": s.llm_calls,
            "llm_calls_by_purpose": dict(sorted(s.llm_calls_by_purpose.items())),
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "cost_usd": round(s.cost_usd, 6),
            "embedding_calls": s.embedding_calls,
            "failures": s.failures,
        }


@asynccontextmanager
async def open_run(
    settings: Settings, *, kind: str, flow_run_id: UUID | None = None, until: datetime | None = None
) -> AsyncIterator[RunContext]:
    """Check the schema, record the run, open the pool; on exit write the final ledger row."""
    url = db.database_url(settings)
    with db.session(settings) as conn:
        check_current(conn, settings)
    llm.register_offline(settings.offline_latency_ms / 1000, settings.embedding_model)
    until = until or datetime.now(UTC)
    ledger = await db.aconnect(url, autocommit=True)
    pool = AsyncConnectionPool(
        url, min_size=1, max_size=settings.concurrency + 1, kwargs={"autocommit": True}, open=False
    )
    ctx = RunContext(settings, uuid4(), kind, until, prompt_version(settings), pool, ledger, runs.RunStats())
    error = None
    try:
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
            window_start=None,
            window_end=until,
            prompt_version=ctx.prompt_version,
            flow_run_id=flow_run_id,
        )
        await pool.open(wait=True)
        yield ctx
        ctx.status = "partial" if ctx.stats.failures else "succeeded"
    except BaseException as exc:
        ctx.status, error = "failed", f"{type(exc).__name__}: {exc}"[:2000]
        raise
    finally:
        try:
            await runs.update_run(ledger, settings, ctx.run_id, ctx.stats, ctx.status, error)
        finally:
            await pool.close()
            await ledger.close()


async def scan(ctx: RunContext) -> list[str]:
    async with ctx.pool.connection() as conn:
        return await pending_users(conn, ctx.settings, ctx.until)


async def embed_missing(ctx: RunContext) -> int:
    """Embed signals that have none yet (added by hand); returns how many."""
    async with ctx.pool.connection() as conn:
        usage = await embeddings.embed_missing(conn, ctx.settings)
    ctx.stats.embedding_calls += usage.calls
    ctx.stats.embedding_tokens += usage.tokens
    ctx.stats.cost_usd += usage.cost_usd
    return usage.signals


def shards(user_ids: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(user_ids), size):
        yield user_ids[start : start + size]


async def process_shard(ctx: RunContext, user_ids: list[str]) -> None:
    """Load the shard's batches; extract its users concurrently (bounded); pass all their proposals
    through the quality gate as one batch; apply the users that passed; update the ledger."""
    async with ctx.pool.connection() as conn:
        batches = await load_batches(conn, ctx.settings, user_ids, ctx.until)
    slots = asyncio.Semaphore(ctx.settings.concurrency)
    extracted = await asyncio.gather(*(extract_safely(ctx, batch, slots) for batch in batches))
    ready = {batch.user_id: (batch, proposals) for batch, proposals in extracted if proposals is not None}
    rejected = await asyncio.to_thread(
        quality.gate_proposals, ctx.settings, {user_id: p for user_id, (_b, p) in ready.items()}
    )
    for user_id, reason in rejected.items():
        await _fail(ctx, user_id, "validate", "quality_gate", reason)
    await asyncio.gather(
        *(apply_safely(ctx, b, p, slots) for user_id, (b, p) in ready.items() if user_id not in rejected)
    )
    await runs.update_run(ctx.ledger, ctx.settings, ctx.run_id, ctx.stats)


async def extract_user(ctx: RunContext, batch: UserBatch) -> list[Proposal]:
    """Model call(s) for one user and strict validation. Raises ModelUnavailable or InvalidAnswer."""
    stats = ctx.stats
    proposals: list[Proposal] = []
    for call in build_calls(batch, ctx.settings, ctx.until.date()):
        completion = await _complete(ctx, call.prompt, "extract")
        answer = parse_extract_answer(completion.text)
        validated = validate_answer(answer, call, ctx.settings, completion.text)
        if validated.skips:
            stats.actions["skipped"] += validated.skips
        proposals.extend(validated.proposals)
    return await _embed(ctx, proposals)


async def _embed(ctx: RunContext, proposals: list[Proposal]) -> list[Proposal]:
    """One embedding call for all of a user's proposals (none when there is nothing to write)."""
    if not proposals:
        return proposals
    result = await llm.embed([p.content for p in proposals], ctx.settings)
    ctx.stats.embedding_calls += 1
    ctx.stats.embedding_tokens += result.prompt_tokens
    ctx.stats.cost_usd += result.cost_usd
    return [replace(p, embedding=tuple(v)) for p, v in zip(proposals, result.vectors, strict=True)]


async def _complete(ctx: RunContext, prompt: list[dict], purpose: str) -> llm.Completion:
    completion = await llm.complete(prompt, ctx.settings)
    stats = ctx.stats
    stats.llm_calls += 1
    stats.llm_calls_by_purpose[purpose] += 1
    stats.prompt_tokens += completion.prompt_tokens
    stats.completion_tokens += completion.completion_tokens
    stats.cost_usd += completion.cost_usd
    return completion


def reconciler(ctx: RunContext) -> Decide:
    """The reconciliation call of this run (made only when a user's write crosses the core cap)."""

    async def decide(core: list[CoreLine], own: list[CoreLine], cap: int) -> ReconcileAnswer:
        completion = await _complete(
            ctx, render_reconcile(ctx.settings, core, own, cap, ctx.until.date()), "reconcile"
        )
        return parse_reconcile_answer(completion.text)

    return decide


async def decay(ctx: RunContext) -> int:
    """Recompute decay scores of all active inferred signals (one statement) and archive contextual ones
    under the threshold. Returns how many were archived."""
    settings = ctx.settings
    params = {
        "at": ctx.until,
        "base_days": settings.decay_base_days,
        "boost": settings.decay_mention_boost,
        "threshold": settings.archive_below,
        "run_id": ctx.run_id,
    }
    async with ctx.pool.connection() as conn, conn.transaction():
        archived = (await (await conn.execute(query(settings, "archive_decayed"), params)).fetchone())[0]
        await conn.execute(query(settings, "update_decay"), params)
    if archived:
        ctx.stats.actions["archived"] += archived
    return archived


async def summarize(ctx: RunContext) -> list[str]:
    """Rebuild the summaries of changed users (bounded concurrency). Returns users whose rebuild failed:
    they stay marked for the next run."""
    if not ctx.settings.summaries:
        return []
    async with ctx.pool.connection() as conn:
        dirty = [row[0] for row in await (await conn.execute(query(ctx.settings, "dirty_users"))).fetchall()]
        todo = await summaries.candidates(conn, ctx.settings, dirty)
    slots = asyncio.Semaphore(ctx.settings.concurrency)
    failed: list[str] = []

    async def write(lines: list[SummaryLine]) -> str:
        return (
            await _complete(ctx, render_summarize(ctx.settings, lines, ctx.until.date()), "summarize")
        ).text

    async def one(candidate: summaries.Candidate) -> None:
        async with slots, ctx.pool.connection() as conn:
            try:
                rebuilt = await summaries.rebuild(conn, ctx.settings, candidate, write, ctx.run_id)
                ctx.stats.actions["summarized" if rebuilt else "summary_dropped"] += 1
            except (llm.ModelUnavailable, InvalidAnswer) as exc:
                log.warning(
                    "user %s: summary not rebuilt (%s); kept the previous one", candidate.user_id, exc
                )
                ctx.stats.warnings.append(f"summary of {candidate.user_id} not rebuilt: {str(exc)[:200]}")
                failed.append(candidate.user_id)

    await asyncio.gather(*(one(c) for c in todo))
    return failed


async def refresh_views(ctx: RunContext, keep_dirty: list[str]) -> None:
    """Refresh the context views for the users changed since the last refresh (dbt, incremental by user).
    A failed build raises (the run fails) and leaves the previous views and the dirty marks in place."""
    from agent_signals import views  # dbt loads only when a run gets this far

    settings = ctx.settings
    started = datetime.now(UTC)
    async with ctx.pool.connection() as conn:
        await conn.execute(query(settings, "take_dirty_users"), {"run_id": ctx.run_id})
    result = await asyncio.to_thread(views.refresh, settings, ctx.run_id)
    ctx.stats.refresh_s = result.seconds
    async with ctx.pool.connection() as conn, conn.transaction():
        await conn.execute(
            query(settings, "clear_dirty_users"), {"run_id": ctx.run_id, "refresh_started": started}
        )
        if keep_dirty:  # their summary failed: the next run tries again
            await conn.execute(query(settings, "mark_dirty"), {"user_ids": keep_dirty})


async def extract_safely(
    ctx: RunContext, batch: UserBatch, slots: asyncio.Semaphore
) -> tuple[UserBatch, list[Proposal] | None]:
    """Never raises: a user whose extraction failed is recorded (None) and retried next run."""
    async with slots:
        stats = ctx.stats
        stats.users += 1
        stats.messages += len(batch.messages)
        stats.conversations += len({m.conversation_id for m in batch.messages})
        try:
            return batch, await extract_user(ctx, batch)
        except llm.ModelUnavailable as exc:
            await _fail(ctx, batch.user_id, "extract", exc.kind, str(exc))
        except InvalidAnswer as exc:
            await _fail(ctx, batch.user_id, "validate", "invalid_answer", exc.reason, exc.raw)
        except Exception as exc:  # a bug: this user only
            log.exception("user %s failed at extract", batch.user_id)
            await _fail(ctx, batch.user_id, "extract", type(exc).__name__, str(exc))
        return batch, None


async def apply_safely(
    ctx: RunContext, batch: UserBatch, proposals: list[Proposal], slots: asyncio.Semaphore
) -> None:
    """Never raises: one transaction for the user; a failure leaves nothing of it and is recorded."""
    async with slots:
        try:
            async with ctx.pool.connection() as conn:
                counts = await apply_user(
                    conn,
                    ctx.settings,
                    batch.user_id,
                    proposals,
                    batch.messages,
                    ctx.provenance,
                    decide=reconciler(ctx),
                    at=ctx.until,
                )
            ctx.stats.actions.update(counts)
        except Exception as exc:  # a database error while applying, or a bug: this user only
            log.exception("user %s failed at apply", batch.user_id)
            await _fail(ctx, batch.user_id, "apply", type(exc).__name__, str(exc))


async def check_tables(ctx: RunContext) -> None:
    """Table-level expectations after the writes: critical ones fail the run, warnings go to the ledger."""
    report = await asyncio.to_thread(
        quality.check_tables, ctx.settings, db.database_url(ctx.settings), ctx.run_id
    )
    ctx.stats.warnings.extend(report.warnings)
    if report.failed_critical:
        raise QualityFailed("; ".join(report.failed_critical))


class QualityFailed(Exception):
    """A critical table-level expectation failed after the writes."""


async def _fail(
    ctx: RunContext, user_id: str, stage: str, kind: str, message: str, raw: str | None = None
) -> None:
    ctx.stats.failures += 1
    log.warning("user %s: %s failed (%s): %s", user_id, stage, kind, message[:300])
    try:
        async with ctx.pool.connection() as conn:
            await runs.record_failure(
                conn,
                ctx.settings,
                run_id=ctx.run_id,
                user_id=user_id,
                stage=stage,
                error_kind=kind,
                message=message,
                raw_answer=raw,
            )
    except Exception:  # the database itself is gone: the user is still pending and retried next run
        log.exception("could not record the failure of user %s", user_id)
