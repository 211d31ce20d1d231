"""Provider batch mode (AGENT_SIGNALS_BATCH_MODE=provider): a run sends its users' extraction prompts as one
provider batch per shard and a later run applies the answers, through the same validation, screening, gate,
embedding and apply as a direct answer (docs/batch.md).

- poll (the run, before the scan): what the provider did with every batch still out; a batch a dead run
  created and never recorded is found again by its key, or abandoned; a batch out too long is a warning.
- split (a shard, its users locked): users whose batch is still out are left alone, those whose batch
  ended are collected, the others are free to extract (sent in a new batch, or asked directly).
- submit: the free users' prompts recorded in the ledger, then sent; a user with nothing to ask is
  applied at once (their watermarks move past what they read).
- collect: each answered user's requests read back from the provider's output and error files, the
  messages and signals their prompts showed loaded by id, the answers judged as a direct one would be.
- wait: a run that sent batches may wait up to AGENT_SIGNALS_BATCH_WAIT_S for them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import psycopg

from agent_signals.adapters import batches as provider
from agent_signals.adapters import llm, structured
from agent_signals.config import Settings
from agent_signals.core.batching import Call, SourceMessage, UserBatch
from agent_signals.core.redaction import redacting_logger
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.stages.context import RunContext, raise_if_stopped, timed
from agent_signals.stages.extract import Asked, Extracted, Judged, conclude, judge, plan_calls
from agent_signals.stages.failures import UserFailed, fail
from agent_signals.store import batches as ledger
from agent_signals.store.source import Pending, known_signals

log = redacting_logger(__name__)

FIND_MARGIN = timedelta(minutes=10)  # clocks of ours and the provider's may disagree this much
NEVER_ASKED = frozenset({"expired", "cancelled"})  # a request the batch ended before answering (error file)


def batching(ctx: RunContext) -> bool:
    """Whether this run sends its extraction prompts in provider batches."""
    return ctx.settings.batch_mode == "provider" and batch_aware(ctx)


def batch_aware(ctx: RunContext) -> bool:
    """Whether this run honours the batch ledger (users out in a batch left alone, ended batches collected):
    scheduled and manual runs, in any mode; not backfills, replays or eval, which read their window directly."""
    return ctx.kind != "backfill" and not ctx.dry_run


def _asked_with(settings: Settings, model: str) -> Settings:
    """The settings a batch is reached with: its own model (the provider's batch lives there)."""
    return settings if settings.model == model else settings.model_copy(update={"model": model})


# the run: poll and wait


async def poll(ctx: RunContext) -> None:
    """What the provider did with every batch still out: ended ones recorded (their answers are collected by
    the shards), lost ones abandoned (their users pending again), old ones a warning."""
    if not batch_aware(ctx):
        return
    if batching(ctx):  # before any user is touched: a provider this mode cannot send to stops the run
        try:
            provider.check_provider(ctx.settings)
        except llm.ModelMisconfigured as exc:
            ctx.halt(exc)
            raise_if_stopped(ctx)
    with timed(ctx, "batches.poll"):
        async with ctx.pool.connection() as conn:
            for batch in await ledger.open_batches(conn, ctx.settings):
                try:
                    await _poll_one(ctx, conn, batch)
                except llm.ModelMisconfigured as exc:
                    ctx.halt(exc)
                    return
                except llm.ModelUnavailable as exc:  # asked again next run
                    warn(ctx, f"batch {batch.batch_key}: the provider could not be asked about it: {exc}")
            await ledger.mark_collected(conn, ctx.settings)


async def _poll_one(ctx: RunContext, conn: psycopg.AsyncConnection, batch: ledger.OpenBatch) -> None:
    settings = _asked_with(ctx.settings, batch.model)
    provider_id = batch.provider_batch_id
    if batch.status == "preparing":
        if batch.run_running:
            return  # another run is sending it now
        found = await provider.find(settings, str(batch.batch_key), batch.created_at - FIND_MARGIN)
        if found is None:
            await ledger.give_up(conn, ctx.settings, batch.batch_key, "abandoned",
                                 "the run that prepared it ended before the provider had it", ctx.run_id)  # fmt: skip
            ctx.stats.batches["abandoned"] += 1
            return
        await ledger.submitted(conn, ctx.settings, batch.batch_key, found.batch_id, found.status)
        ctx.stats.batches["adopted"] += 1
        log.warning("batch %s: found at the provider as %s and recorded", batch.batch_key, found.batch_id)
        provider_id = found.batch_id
    if batch.status in ("preparing", "submitted"):
        assert provider_id is not None
        try:
            status = await provider.retrieve(settings, provider_id)
        except llm.ModelMisconfigured as exc:
            if exc.kind != "not_found":
                raise
            await ledger.give_up(conn, ctx.settings, batch.batch_key, "abandoned",
                                 f"the provider no longer knows batch {provider_id}", ctx.run_id)  # fmt: skip
            ctx.stats.batches["abandoned"] += 1
            warn(ctx, f"batch {batch.batch_key} ({provider_id}): the provider no longer knows it; its users are "
                      "sent again")  # fmt: skip
            return
        if status.ended:
            await ledger.ended(
                conn, ctx.settings, batch.batch_key, provider_status=status.status,
                output_file_id=status.output_file_id, error_file_id=status.error_file_id,
                answered=status.completed, failed=status.failed, error=status.error,
            )  # fmt: skip
            if status.status != "completed":
                warn(ctx, f"batch {batch.batch_key} ({provider_id}) ended {status.status}: its unanswered "
                           "users are asked again" + (f" ({status.error})" if status.error else ""))  # fmt: skip
            return
        await ledger.seen(conn, ctx.settings, batch.batch_key, status.status)
        age = datetime.now(UTC) - (batch.submitted_at or batch.created_at)
        if age.total_seconds() > ctx.settings.batch_warn_age_s:
            warn(ctx, f"batch {batch.batch_key} ({provider_id}) has been out for {age.total_seconds() / 3600:.1f} h "
                       f"(AGENT_SIGNALS_BATCH_WARN_AGE_S={ctx.settings.batch_warn_age_s:g}): the provider says "
                       f"{status.status}; `agent-signals batches cancel {batch.batch_key}` gives its users back")  # fmt: skip


async def wait(ctx: RunContext) -> list[Pending]:
    """Wait up to AGENT_SIGNALS_BATCH_WAIT_S for the batches this run sent; returns the users of those that
    ended meanwhile (the run collects them now)."""
    if not batching(ctx) or ctx.settings.batch_wait_s <= 0:
        return []
    deadline = time.monotonic() + ctx.settings.batch_wait_s

    async def still_out() -> set[UUID]:  # a connection only while asking: none is held while sleeping
        async with ctx.pool.connection() as conn:
            return set(await ledger.run_batches(conn, ctx.settings, ctx.run_id))

    sent = out = await still_out()
    with timed(ctx, "batches.wait"):
        while out and not ctx.stop.stopped and (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(ctx.settings.batch_poll_s, left))
            await poll(ctx)
            out = await still_out()
    async with ctx.pool.connection() as conn:
        return [Pending(u, 0) for u in await ledger.users_waiting_in(conn, ctx.settings, list(sent - out))]


async def with_answered(ctx: RunContext, pending: list[Pending]) -> list[Pending]:
    """The scan's pending users and those waiting in a batch that ended, pending or not (a user whose
    conversations were deleted or unflagged since is still collected: their requests close, their batch too)."""
    if not batch_aware(ctx):
        return pending
    async with ctx.pool.connection() as conn:
        waiting = await ledger.waiting(conn, ctx.settings, None)
    known = {p.user_id for p in pending}
    return [*pending, *(Pending(u, 0) for u, r in waiting.items() if not r[0].out and u not in known)]


async def settle(ctx: RunContext) -> None:
    """The batches whose every request the run's shards closed are `collected`."""
    if batch_aware(ctx):
        async with ctx.pool.connection() as conn:
            await ledger.mark_collected(conn, ctx.settings)


# a shard: split, submit, collect


@dataclass(frozen=True)
class Split:
    free: list[str]  # not in any batch: extract (send, or ask directly)
    answered: dict[str, list[ledger.Waiting]]  # their batch ended: collect


async def split(ctx: RunContext, user_ids: list[str]) -> Split:
    """The shard's locked users by where they stand in the batch ledger (a run that is not batch-aware, a
    backfill, treats every user as free)."""
    if not batch_aware(ctx) or not user_ids:
        return Split(user_ids, {})
    async with ctx.pool.connection() as conn:
        waiting = await ledger.waiting(conn, ctx.settings, user_ids)
    out = [u for u, requests in waiting.items() if requests[0].out]
    if out:
        ctx.stats.skipped_users["in_batch"] += len(out)
    answered = {u: requests for u, requests in waiting.items() if not requests[0].out}
    return Split([u for u in user_ids if u not in waiting], answered)


async def submit(ctx: RunContext, users: list[UserBatch]) -> list[tuple[UserBatch, Extracted]]:
    """Send the users' prompts as one provider batch: recorded first (`preparing`, with each request's user,
    call and the ids it shows), then uploaded and created, then its id recorded. Returns the users with
    nothing to ask (applied now, like a direct run's); the others wait for a later run."""
    settings = ctx.settings
    if ctx.stop.stopped:  # a misconfigured model or a signal: nothing more is sent (the users stay pending)
        ctx.stats.skipped_users["stopped"] += len(users)
        return []
    now, requests, prompts = [], [], []
    async with ctx.pool.connection() as conn:
        cut_last = await ledger.truncated_last(conn, settings, [u.user_id for u in users])
    larger = llm.larger_budget(settings.model, settings.max_answer_tokens)
    for user in users:
        budget = (
            (larger or settings.max_answer_tokens) if user.user_id in cut_last else settings.max_answer_tokens
        )
        try:
            calls = plan_calls(ctx, user)
        except Exception as exc:  # a prompt that cannot be built (a bug, or a budget too small): this user
            await fail(ctx, user.user_id, "extract", type(exc).__name__, str(exc), read=user.messages,
                       counted=True)  # fmt: skip
            continue
        if not calls:
            ctx.stats.note_user(user.user_id)
            ctx.stats.messages += len(user.messages)
            now.append((user, Extracted([], [])))
            continue
        shown = {(m.conversation_id, m.message_id) for call in calls for m in call.messages.values()}
        also_read = [ledger.Shown("", m.conversation_id, m.message_id) for m in user.messages
                     if (m.conversation_id, m.message_id) not in shown]  # fmt: skip
        for index, call in enumerate(calls):
            custom_id = f"r{len(requests)}"
            requests.append(ledger.NewRequest(
                custom_id, user.user_id, index, len(calls),
                [*_shown(call), *(also_read if index == 0 else ())],
                [(handle, signal.signal_id) for handle, signal in call.signals.items()],
                budget,
            ))  # fmt: skip
            prompts.append(provider.BatchRequest(custom_id, call.prompt, max_tokens=budget))
    if requests:
        await send(ctx, requests, prompts)
    return now


def _shown(call: Call) -> list[ledger.Shown]:
    cut = {(c.message.conversation_id, c.message.message_id): c.kept for c in call.cut}
    return [
        ledger.Shown(handle, m.conversation_id, m.message_id, cut.get((m.conversation_id, m.message_id)))
        for handle, m in call.messages.items()
    ]


async def send(
    ctx: RunContext, requests: list[ledger.NewRequest], prompts: list[provider.BatchRequest], *,
    purpose: str = "extract", prompt_version: str | None = None,
) -> None:  # fmt: skip
    """Record the requests (`preparing`), send them as one provider batch, record its id. A batch the provider
    refuses is closed `unsent` (its users pending again); a misconfigured model stops the run."""
    settings, stats = ctx.settings, ctx.stats
    key = uuid4()
    users = len({r.user_id for r in requests})
    async with ctx.pool.connection() as conn:
        try:
            await ledger.record_batch(
                conn, settings, batch_key=key, run_id=ctx.run_id, model=settings.model,
                prompt_version=prompt_version or ctx.prompt_version, answer_mode=structured.answer_mode(settings),
                requests=requests, purpose=purpose,
            )  # fmt: skip
        except psycopg.errors.UniqueViolation:  # a user sent by another run meanwhile (never under the locks)
            warn(ctx, f"{users} user(s) not sent: one of them is already waiting in another batch")
            stats.skipped_users["in_batch"] += users
            return
        try:
            provider_id = await provider.submit(settings, prompts, str(key))
        except (llm.ModelMisconfigured, llm.ModelUnavailable) as exc:
            await ledger.give_up(conn, settings, key, "unsent", str(exc), ctx.run_id)
            stats.batches["unsent"] += 1
            stats.skipped_users["batch_unsent"] += users
            if isinstance(exc, llm.ModelMisconfigured):
                ctx.halt(exc)
            else:
                warn(ctx, f"a batch of {users} user(s) could not be sent ({exc}); they are sent next run")
            return
        await ledger.submitted(conn, settings, key, provider_id, "submitted")
    prefix = "" if purpose == "extract" else f"{purpose}_"
    stats.batches[f"{prefix}sent"] += 1
    stats.batches[f"{prefix}requests_sent"] += len(requests)
    stats.batches[f"{prefix}users_sent"] += users
    log.info("batch %s (%s): %d request(s) of %d user(s) sent", key, provider_id, len(requests), users)


async def collect(
    ctx: RunContext, answered: dict[str, list[ledger.Waiting]]
) -> list[tuple[UserBatch, Extracted | None]]:
    """The answered users' answers read back and judged, AGENT_SIGNALS_CONCURRENCY users at a time, each
    batch's files read once (None: the user failed, was not answered and is pending again, or is left
    waiting for the next run: the run's budget is spent, or the files could not be read)."""
    files: dict[UUID, asyncio.Task] = {}
    slots = asyncio.Semaphore(ctx.settings.concurrency)

    async def one(user_id: str, requests: list[ledger.Waiting]) -> tuple[UserBatch, Extracted | None]:
        first = requests[0]
        if first.batch_key not in files:
            files[first.batch_key] = asyncio.ensure_future(results(ctx, first))
        async with slots:
            return await _collect_user(ctx, user_id, requests, files[first.batch_key])

    return list(await asyncio.gather(*(one(u, r) for u, r in answered.items())))


async def results(ctx: RunContext, batch: ledger.Waiting) -> dict[str, provider.BatchResult]:
    """The answers of a batch that ended, by custom_id (read from its output and error files)."""
    status = provider.BatchStatus(
        batch.provider_batch_id or "", batch.provider_status or "completed", batch.output_file_id,
        batch.error_file_id, 0, 0, 0, None, None,
    )  # fmt: skip
    return await provider.results(_asked_with(ctx.settings, batch.model), status)


def warn(ctx: RunContext, message: str) -> None:
    ctx.stats.warnings.append(message)
    log.warning(message)


async def _collect_user(
    ctx: RunContext, user_id: str, requests: list[ledger.Waiting], results: asyncio.Task
) -> tuple[UserBatch, Extracted | None]:
    settings, stats = ctx.settings, ctx.stats
    batch_key = requests[0].batch_key
    if ctx.budget_exhausted or ctx.stop.stopped:  # still waiting: the next run applies them
        stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += 1
        return UserBatch(user_id), None
    async with ctx.pool.connection() as conn:
        every = [m for r in requests for m in r.messages]
        found = await ledger.asked_messages(conn, settings, user_id, every, ctx.until)
        signals = await ledger.asked_signals(
            conn, settings, user_id, [s for r in requests for _h, s in r.signals]
        )
        known = (await known_signals(conn, settings, [user_id])).get(user_id, [])
    read = [found[k] for k in dict.fromkeys((m.conversation_id, m.message_id) for m in every) if k in found]
    user = UserBatch(user_id, read, known)

    async def close(status: str, error_kind: str | None = None) -> None:
        async with ctx.pool.connection() as conn:
            await ledger.close_requests(conn, settings, batch_key, user_id, status, ctx.run_id, error_kind)

    try:
        answers = await results
    except llm.ModelMisconfigured as exc:
        if exc.kind == "not_found":  # the provider deleted the files: the user is sent again
            stats.batches["unanswered"] += 1
            await close("unanswered", "files_gone")
            return user, None
        ctx.halt(exc)
        return user, None
    except llm.ModelUnavailable as exc:  # the files could not be read now: the user waits for the next run
        warn(ctx, f"batch {batch_key}: its answers could not be read ({exc}); read again next run")
        return user, None
    unanswered = [
        r for r in requests if r.custom_id not in answers or answers[r.custom_id].error_kind in NEVER_ASKED
    ]
    if unanswered:  # the batch expired, was cancelled or failed before these were answered
        stats.batches["unanswered"] += 1
        await close("unanswered")
        return user, None
    stats.note_user(user_id)
    stats.messages += len(read)
    stats.conversations += len({m.conversation_id for m in read})
    judged = Judged()
    try:
        for request in requests:
            result = answers[request.custom_id]
            shown = [m for m in request.messages if m.handle]
            call_read = [found[(m.conversation_id, m.message_id)] for m in shown
                         if (m.conversation_id, m.message_id) in found]  # fmt: skip
            if result.spent is not None:  # an empty answer: paid for
                spent = result.spent
                stats.count_call("extract", "batch", spent.prompt_tokens, spent.cached_prompt_tokens,
                                 spent.completion_tokens, spent.cost_usd)  # fmt: skip
            if result.completion is None:
                kind = result.error_kind or "error"
                raise UserFailed("extract", kind, result.error or kind, call_read,
                                 counted=kind not in TRANSIENT_MODEL_FAULTS)  # fmt: skip
            completion = result.completion
            stats.count_call("extract", "batch", completion.prompt_tokens, completion.cached_prompt_tokens,
                             completion.completion_tokens, completion.cost_usd)  # fmt: skip
            stats.batches["answers"] += 1
            if completion.truncated:  # asked again with a larger budget, then counted against the user
                again = llm.larger_budget(request.model, ctx.settings.max_answer_tokens)
                raise UserFailed("extract", "truncated", f"the batch answer was cut at max_tokens="
                                 f"{request.max_tokens} (finish_reason length)", call_read,
                                 counted=again is None or request.max_tokens >= again)  # fmt: skip
            call = Call(
                prompt=[],
                messages={m.handle: _as_shown(found[(m.conversation_id, m.message_id)], m.kept)
                          for m in shown if (m.conversation_id, m.message_id) in found},
                signals={h: signals[s] for h, s in request.signals if s in signals},
            )  # fmt: skip
            judge(ctx, call, completion.text, judged)
    except UserFailed as exc:
        stats.batches["failed"] += 1
        await fail(
            ctx, user_id, exc.stage, exc.kind, exc.message, exc.raw, read=exc.read, counted=exc.counted
        )
        await close("failed", exc.kind)
        return user, None
    extracted = conclude(ctx, user, len(requests), judged)
    return user, replace(extracted, asked=Asked(batch_key, requests[0].model, requests[0].prompt_version))


def _as_shown(message: SourceMessage, kept: int | None) -> SourceMessage:
    """The message as the prompt showed it: its first `kept` characters when it was cut to fit."""
    return message if kept is None else replace(message, content=message.content[:kept])
