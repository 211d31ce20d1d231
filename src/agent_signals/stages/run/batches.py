"""Provider batch mode (AGENT_SIGNALS_BATCH_MODE=provider), a shard's side: the shard's users sent as one
provider batch, and the answers of the batches that ended applied through the same validation, screening,
gate, embedding and apply as a direct answer (docs/batch.md). The run's side (poll, wait) is batch_watch.py.

- split (a shard, its users locked): users whose batch is still out are left alone, those whose batch
  ended are collected, the others are free to extract (sent in a new batch, or asked directly).
- submit: the free users' prompts recorded in the ledger, then sent; a user with nothing to ask is
  applied at once (their watermarks move past what they read).
- collect: each answered user's requests read back from the provider's output and error files, the
  messages and signals their prompts showed loaded by id, the answers judged as a direct one would be.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from uuid import UUID, uuid4

import psycopg

from agent_signals.adapters import batch_results, llm, provider_batches, structured
from agent_signals.config import Settings
from agent_signals.core.outcome import Provenance, UserOutcome
from agent_signals.core.prompting.extract_calls import Call, SourceMessage, UserMessages
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.stages.extract import judge, plan_calls
from agent_signals.stages.run.context import RunContext
from agent_signals.stages.run.failures import UserFailed, fail
from agent_signals.store.ledger import batch_ledger
from agent_signals.store.source import known_signals

log = redacting_logger(__name__)

NEVER_ASKED = frozenset({"expired", "cancelled"})  # a request the batch ended before answering (error file)


def batching(ctx: RunContext) -> bool:
    """Whether this run sends its extraction prompts in provider batches."""
    return ctx.settings.batch.mode == "provider" and batch_aware(ctx)


def batch_aware(ctx: RunContext) -> bool:
    """Whether this run honours the batch ledger (users out in a batch left alone, ended batches collected):
    scheduled and manual runs, in any mode; not backfills, replays or eval, which read their window directly."""
    return ctx.kind != "backfill" and not ctx.dry_run


def asked_with(settings: Settings, model: str) -> Settings:
    """The settings a batch is reached with: its own model (the provider's batch lives there)."""
    return settings if settings.model.name == model else settings.replace(model=model)


# a shard: split, submit, collect


@dataclass(frozen=True)
class Split:
    free: list[str]  # not in any batch: extract (send, or ask directly)
    answered: dict[str, list[batch_ledger.Waiting]]  # their batch ended: collect


async def split(ctx: RunContext, user_ids: list[str]) -> Split:
    """The shard's locked users by where they stand in the batch ledger (a run that is not batch-aware, a
    backfill, treats every user as free)."""
    if not batch_aware(ctx) or not user_ids:
        return Split(user_ids, {})
    async with ctx.pool.connection() as conn:
        waiting = await batch_ledger.waiting(conn, user_ids)
    out = [u for u, requests in waiting.items() if requests[0].out]
    if out:
        ctx.stats.skipped_users["in_batch"] += len(out)
    answered = {u: requests for u, requests in waiting.items() if not requests[0].out}
    return Split([u for u in user_ids if u not in waiting], answered)


async def submit(ctx: RunContext, users: list[UserMessages]) -> list[UserOutcome]:
    """Send the users' prompts as one provider batch: recorded first (`preparing`, with each request's user,
    call and the ids it shows), then uploaded and created, then its id recorded. Returns the users with
    nothing to ask (applied now, like a direct run's); the others wait for a later run."""
    settings = ctx.settings
    if ctx.stop.stopped:  # a misconfigured model or a signal: nothing more is sent (the users stay pending)
        ctx.stats.skipped_users["stopped"] += len(users)
        return []
    now, requests, prompts = [], [], []
    async with ctx.pool.connection() as conn:
        cut_last = await batch_ledger.truncated_last(conn, [u.user_id for u in users])
    larger = llm.larger_budget(settings.model.name, settings.model.max_answer_tokens)
    for user in users:
        budget = (
            (larger or settings.model.max_answer_tokens)
            if user.user_id in cut_last
            else settings.model.max_answer_tokens
        )
        try:
            calls = await plan_calls(ctx, user)
        except UserFailed as exc:  # a prompt that cannot be built (a bug, or a budget too small): this user
            await fail(ctx, user.user_id, exc.stage, exc.kind, exc.message, read=exc.read, counted=True)
            continue
        if not calls:
            ctx.stats.note_user(user.user_id)
            ctx.stats.messages += len(user.messages)
            now.append(UserOutcome(user, ctx.provenance, figures=ctx.stats.actions))
            continue
        shown = {(m.conversation_id, m.message_id) for call in calls for m in call.messages.values()}
        also_read = [batch_ledger.Shown("", m.conversation_id, m.message_id) for m in user.messages
                     if (m.conversation_id, m.message_id) not in shown]  # fmt: skip
        for index, call in enumerate(calls):
            custom_id = f"r{len(requests)}"
            requests.append(batch_ledger.NewRequest(
                custom_id, user.user_id, index, len(calls),
                [*_shown(call), *(also_read if index == 0 else ())],
                [(handle, signal.signal_id) for handle, signal in call.signals.items()],
                budget,
            ))  # fmt: skip
            prompts.append(provider_batches.BatchRequest(custom_id, call.prompt, max_tokens=budget))
    if requests:
        await send(ctx, requests, prompts)
    return now


def _shown(call: Call) -> list[batch_ledger.Shown]:
    cut = {(c.message.conversation_id, c.message.message_id): c.kept for c in call.cut}
    return [
        batch_ledger.Shown(
            handle, m.conversation_id, m.message_id, cut.get((m.conversation_id, m.message_id))
        )
        for handle, m in call.messages.items()
    ]


async def send(
    ctx: RunContext, requests: list[batch_ledger.NewRequest], prompts: list[provider_batches.BatchRequest], *,
    purpose: str = "extract", prompt_version: str | None = None,
) -> None:  # fmt: skip
    """Record the requests (`preparing`), send them as one provider batch, record its id. A batch the provider
    refuses is closed `unsent` (its users pending again); a misconfigured model stops the run."""
    settings, stats = ctx.settings, ctx.stats
    key = uuid4()
    users = len({r.user_id for r in requests})
    async with ctx.pool.connection() as conn:
        try:
            await batch_ledger.record_batch(
                conn, batch_key=key, run_id=ctx.run_id, model=settings.model.name,
                prompt_version=prompt_version or ctx.prompt_version, answer_mode=structured.answer_mode(settings),
                requests=requests, purpose=purpose,
            )  # fmt: skip
        except psycopg.errors.UniqueViolation:  # a user sent by another run meanwhile (never under the locks)
            warn(ctx, f"{users} user(s) not sent: one of them is already waiting in another batch")
            stats.skipped_users["in_batch"] += users
            return
        try:
            provider_id = await provider_batches.submit(settings, prompts, str(key))
        except (llm.ModelMisconfigured, llm.ModelUnavailable) as exc:
            await batch_ledger.give_up(conn, key, "unsent", str(exc), ctx.run_id)
            stats.batches["unsent"] += 1
            stats.skipped_users["batch_unsent"] += users
            if isinstance(exc, llm.ModelMisconfigured):
                ctx.halt(exc)
            else:
                warn(ctx, f"a batch of {users} user(s) could not be sent ({exc}); they are sent next run")
            return
        await batch_ledger.submitted(conn, key, provider_id, "submitted")
    prefix = "" if purpose == "extract" else f"{purpose}_"
    stats.batches[f"{prefix}sent"] += 1
    stats.batches[f"{prefix}requests_sent"] += len(requests)
    stats.batches[f"{prefix}users_sent"] += users
    log.info("batch %s (%s): %d request(s) of %d user(s) sent", key, provider_id, len(requests), users)


async def collect(
    ctx: RunContext, answered: dict[str, list[batch_ledger.Waiting]]
) -> list[UserOutcome | None]:
    """The answered users' answers read back and judged, AGENT_SIGNALS_CONCURRENCY users at a time, each
    batch's files read once (None: the user failed, was not answered and is pending again, or is left
    waiting for the next run: the run's budget is spent, or the files could not be read)."""
    files: dict[UUID, asyncio.Task] = {}
    slots = asyncio.Semaphore(ctx.settings.run.concurrency)

    async def one(user_id: str, requests: list[batch_ledger.Waiting]) -> UserOutcome | None:
        first = requests[0]
        if first.batch_key not in files:
            files[first.batch_key] = asyncio.ensure_future(results(ctx, first))
        async with slots:
            return await _collect_user(ctx, user_id, requests, files[first.batch_key])

    return list(await asyncio.gather(*(one(u, r) for u, r in answered.items())))


async def results(ctx: RunContext, batch: batch_ledger.Waiting) -> dict[str, batch_results.BatchResult]:
    """The answers of a batch that ended, by custom_id (read from its output and error files)."""
    status = provider_batches.BatchStatus(
        batch.provider_batch_id or "", batch.provider_status or "completed", batch.output_file_id,
        batch.error_file_id, 0, 0, 0, None, None,
    )  # fmt: skip
    return await batch_results.results(asked_with(ctx.settings, batch.model), status)


def warn(ctx: RunContext, message: str) -> None:
    ctx.stats.warnings.append(message)
    log.warning(message)


async def _collect_user(
    ctx: RunContext, user_id: str, requests: list[batch_ledger.Waiting], results: asyncio.Task
) -> UserOutcome | None:
    settings, stats = ctx.settings, ctx.stats
    batch_key = requests[0].batch_key
    if ctx.budget_exhausted or ctx.stop.stopped:  # still waiting: the next run applies them
        stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += 1
        return None
    async with ctx.pool.connection() as conn:
        every = [m for r in requests for m in r.messages]
        found = await batch_ledger.asked_messages(conn, settings, user_id, every, ctx.until)
        signals = await batch_ledger.asked_signals(
            conn, user_id, [s for r in requests for _h, s in r.signals]
        )
        known = (await known_signals(conn, [user_id])).get(user_id, [])
    read = [found[k] for k in dict.fromkeys((m.conversation_id, m.message_id) for m in every) if k in found]
    user = UserMessages(user_id, read, known)

    async def close(status: str, error_kind: str | None = None) -> None:
        async with ctx.pool.connection() as conn:
            await batch_ledger.close_requests(conn, [(batch_key, user_id)], status, ctx.run_id, error_kind)

    try:
        answers = await results
    except llm.ModelMisconfigured as exc:
        if exc.kind == "not_found":  # the provider deleted the files: the user is sent again
            stats.batches["unanswered"] += 1
            await close("unanswered", "files_gone")
            return None
        ctx.halt(exc)
        return None
    except llm.ModelUnavailable as exc:  # the files could not be read now: the user waits for the next run
        warn(ctx, f"batch {batch_key}: its answers could not be read ({exc}); read again next run")
        return None
    unanswered = [
        r for r in requests if r.custom_id not in answers or answers[r.custom_id].error_kind in NEVER_ASKED
    ]
    if unanswered:  # the batch expired, was cancelled or failed before these were answered
        stats.batches["unanswered"] += 1
        await close("unanswered")
        return None
    stats.note_user(user_id)
    stats.messages += len(read)
    stats.conversations += len({m.conversation_id for m in read})
    asked = Provenance(ctx.run_id, requests[0].prompt_version, requests[0].model)  # recorded with its writes
    outcome = UserOutcome(user, asked, batch_key, calls=len(requests), figures=stats.actions)
    try:
        for index, request in enumerate(requests):
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
                again = llm.larger_budget(request.model, ctx.settings.model.max_answer_tokens)
                raise UserFailed("extract", "truncated", f"the batch answer was cut at max_tokens="
                                 f"{request.max_tokens} (finish_reason length)", call_read,
                                 counted=again is None or request.max_tokens >= again)  # fmt: skip
            call = Call(
                prompt=[],
                messages={m.handle: _as_shown(found[(m.conversation_id, m.message_id)], m.kept)
                          for m in shown if (m.conversation_id, m.message_id) in found},
                signals={h: signals[s] for h, s in request.signals if s in signals},
            )  # fmt: skip
            last = index == len(requests) - 1
            outcome = await judge(ctx, call, completion.text, outcome, settle_after=last)
    except UserFailed as exc:
        stats.batches["failed"] += 1
        await fail(
            ctx, user_id, exc.stage, exc.kind, exc.message, exc.raw, read=exc.read, counted=exc.counted
        )
        await close("failed", exc.kind)
        return None
    return outcome


def _as_shown(message: SourceMessage, kept: int | None) -> SourceMessage:
    """The message as the prompt showed it: its first `kept` characters when it was cut to fit."""
    return message if kept is None else replace(message, content=message.content[:kept])
