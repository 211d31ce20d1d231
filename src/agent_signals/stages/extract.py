"""The extract stage of a shard: one user's model call(s), each action of the answer validated into the
user's outcome (core/outcome.py: UserOutcome, which flows on to apply); then the shard's proposals screened
as one frame (conclude: what to write, quarantine, hold for review or reject), the summary an answer gave
kept only when it describes exactly what is written; extract_safely records a failing user and goes on;
embed_safely embeds the shard's candidates (proposals_frame: the proposals and those held for review), each
distinct content once, in as few calls as possible.

Each action of an answer is judged on its own (validation, screening, the quality gate): the rejected ones
are recorded (ops.rejected_actions), the others applied. An answer that cannot be parsed, or a model error
for the user's prompt, is a failure of the user (ops.failures): tried again after a growing backoff, and
after AGENT_SIGNALS_FAILING_USER_ATTEMPTS the messages those calls read are set aside (retries.py)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from agent_signals.adapters import llm
from agent_signals.core.actions import EMBEDDED, Count, action_of
from agent_signals.core.outcome import UserOutcome, validate_answer
from agent_signals.core.prompting.answers import InvalidAnswer, parse_extract_actions
from agent_signals.core.prompting.extract_calls import Call, UserMessages, build_calls
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.core.screening.screen import screen_shard
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.stages import embed
from agent_signals.stages.run.calls import complete, record_calls
from agent_signals.stages.run.context import RunContext
from agent_signals.stages.run.failures import UserFailed, fail

log = redacting_logger(__name__)


async def extract_user(ctx: RunContext, user: UserMessages) -> UserOutcome:
    """Model call(s) for one user and validation of each action (screening is the shard's: conclude).
    Raises UserFailed."""
    calls = plan_calls(ctx, user)
    outcome = UserOutcome(user, ctx.provenance, calls=len(calls), figures=ctx.stats.actions)
    for call in calls:
        read = list(call.messages.values())
        try:
            completion = await complete(ctx, call.prompt, "extract")
        except llm.ModelUnavailable as exc:  # transient faults are the model's, the others this prompt's
            counted = exc.kind not in TRANSIENT_MODEL_FAULTS
            raise UserFailed("extract", exc.kind, str(exc), read, counted=counted) from exc
        judge(ctx, call, completion.text, outcome)
    return outcome


def plan_calls(ctx: RunContext, user: UserMessages) -> list[Call]:
    """The user's prompts (extract_calls.build_calls), with the run's figures and warnings for what they show."""
    stats = ctx.stats
    calls = build_calls(user, ctx.settings, ctx.until.date())
    hidden = sum(1 for m in user.messages if m.hidden)
    if hidden:  # read without their invisible characters (text.clean); counted so that a run shows it
        stats.actions[Count.MESSAGES_HIDDEN_TEXT] += hidden
    for call in calls:
        for cut in call.cut:
            stats.actions[Count.MESSAGES_CUT] += 1
            stats.warnings.append(
                f"message {cut.message.message_id} of conversation {cut.message.conversation_id} (user "
                f"{user.user_id}): only its first {cut.kept} of {cut.length} characters were read, the "
                "part that fits in AGENT_SIGNALS_MAX_PROMPT_TOKENS"
            )
            log.warning(stats.warnings[-1])
    return calls


def judge(ctx: RunContext, call: Call, text: str, outcome: UserOutcome) -> None:
    """One call's answer parsed and each of its actions validated against what the call showed, into the
    user's outcome (the same for a direct answer and one read from a provider batch). Raises UserFailed for
    an answer that cannot be parsed."""
    try:
        answer = parse_extract_actions(text)
    except InvalidAnswer as exc:
        read = list(call.messages.values())
        raise UserFailed("validate", "invalid_answer", exc.reason, read, raw=exc.raw) from None
    validate_answer(answer, call, ctx.settings, outcome)


async def conclude(ctx: RunContext, outcomes: Sequence[UserOutcome | None]) -> dict[str, UserOutcome]:
    """Screen the shard's proposals against each user's known signals, as one frame (screen.screen_shard);
    keep an answer's summary only where it describes exactly what gets written. Never raises: a bug in
    screening fails the users it is about (recorded, retried next run), not the shard."""
    answered = {o.user_id: o for o in outcomes if o is not None}
    # the answer's summary is kept only when it can describe exactly what gets written: one call, every
    # candidate passed validation and screening, and the summary itself passes (apply checks the rest). A
    # refused summary is left to the summarize stage, which writes it from the stored signals.
    for o in answered.values():
        if not _may_summarize(ctx, o):
            o.summary = None
    keep_special = ctx.settings.screening.special_categories == "keep"
    language = ctx.settings.screening.signal_language
    try:
        screen_shard(list(answered.values()), keep_special=keep_special, language=language)
        screened = list(answered.values())
    except Exception:  # a bug: screened again user by user, so that it fails only the users it is about
        log.exception("screening the shard failed; screening its users one at a time")
        screened = []
        for o in answered.values():
            try:
                screen_shard([o], keep_special=keep_special, language=language)
                screened.append(o)
            except Exception as exc:
                log.exception("user %s failed at screening", o.user_id)
                await fail(ctx, o.user_id, "extract", type(exc).__name__, str(exc), read=o.read, counted=True)
    for o in screened:
        held = []
        for p, reason in o.held:
            refused = _not_held(ctx, p)
            if refused is None:
                held.append((p, reason))
            else:
                o.count(Count.SKIPPED_REVIEW)
                o.rejected.append(Rejection.of(p, "screen", f"held for review, {refused}: {reason}"))
        o.held = held
    return {o.user_id: o for o in screened}


def _may_summarize(ctx: RunContext, outcome: UserOutcome) -> bool:
    """Whether the answer's summary may describe what gets written: one call, no action rejected, the
    summaries on, and only profile facts (a summary is the profile's: the model's may mix in an agent's)."""
    return (
        outcome.calls == 1
        and not any(not r.kept for r in outcome.rejected)
        and ctx.settings.run.summaries
        and all(p.agent_id is None for p in outcome.proposals)
    )


def _not_held(ctx: RunContext, proposal: Proposal) -> str | None:
    """Why a candidate screening held for review is rejected instead (None: it waits for a reviewer as a
    pending signal): AGENT_SIGNALS_REVIEW=reject, or a kind that cannot wait (core/actions.py: an `end`
    changes a signal agents read and writes no text that could wait)."""
    if ctx.settings.screening.review == "reject":
        return "rejected (AGENT_SIGNALS_REVIEW=reject)"
    if not action_of(proposal).waits:
        article = "an" if proposal.action[0] in "aeiou" else "a"
        return f"rejected ({article} {proposal.action} cannot wait for review)"
    return None


async def extract_safely(
    ctx: RunContext, user: UserMessages, started: dict[str, float]
) -> UserOutcome | None:
    """Never raises: a user whose extraction failed is recorded (None) and retried next run. Once the
    budget is spent, users not yet started are skipped (None): still pending, the next run takes them."""
    async with ctx.pacing.model_slots:
        stats = ctx.stats
        if ctx.budget_exhausted or ctx.stop.stopped:
            stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += 1
            return None
        started[user.user_id] = time.monotonic()
        stats.note_user(user.user_id)
        stats.messages += len(user.messages)
        stats.conversations += len({m.conversation_id for m in user.messages})
        try:
            return await extract_user(ctx, user)
        except llm.ModelMisconfigured as exc:  # not this user's fault: no failure recorded, still pending
            stats.users -= 1
            stats.messages -= len(user.messages)
            stats.conversations -= len({m.conversation_id for m in user.messages})
            stats.skipped_users["stopped"] += 1
            ctx.halt(exc)
        except UserFailed as exc:
            await fail(ctx, user.user_id, exc.stage, exc.kind, exc.message, exc.raw, read=exc.read,
                       counted=exc.counted)  # fmt: skip
        except Exception as exc:  # a bug: this user only
            log.exception("user %s failed at extract", user.user_id)
            await fail(ctx, user.user_id, "extract", type(exc).__name__, str(exc), read=user.messages,
                       counted=True)  # fmt: skip
        return None


def proposals_frame(ready: dict[str, UserOutcome]) -> pl.DataFrame:
    """The shard's candidates to write as one polars frame, a row per candidate (`index`: its place in the
    user's UserOutcome.candidates, the proposals then those held for review): what the quality gate
    validates and the embedding reads."""
    rows = [
        (user_id, i, p.action, p.tier, p.kind, p.content, len(p.evidence))
        for user_id, o in ready.items()
        for i, (p, _held) in enumerate(o.candidates)
    ]
    return pl.DataFrame(rows, schema=PROPOSALS, orient="row")


PROPOSALS = {"user_id": pl.String, "index": pl.Int64, "action": pl.String, "tier": pl.String,
             "kind": pl.String, "content": pl.String, "evidence": pl.Int64}  # fmt: skip


async def embed_safely(ctx: RunContext, ready: dict[str, UserOutcome]) -> dict[str, UserOutcome]:
    """Embed the shard's candidates (proposals_frame: the proposals and those held for review) in as few
    calls as possible: each distinct content once, embed.BATCH texts a call, none when there is nothing to
    write. Never raises: the users of a failed call are recorded and left out (retried next run); the others
    are returned with their candidates embedded. An action that writes no text (an `end`: its signal keeps
    its embedding) is not embedded (core/actions.py)."""
    frame = proposals_frame(ready).filter(pl.col("action").is_in(EMBEDDED))
    texts = frame["content"].unique(maintain_order=True).to_list()
    users_of = dict(frame.group_by("content").agg(pl.col("user_id").unique(maintain_order=True)).iter_rows())
    vectors: dict[str, tuple[float, ...]] = {}
    failed: set[str] = set()
    for start in range(0, len(texts), embed.BATCH):
        chunk = texts[start : start + embed.BATCH]
        try:
            result = await llm.embed(chunk, ctx.settings)
        except llm.ModelMisconfigured as exc:
            ctx.halt(exc)
            return {}
        except llm.ModelUnavailable as exc:
            for user_id in sorted({u for text in chunk for u in users_of[text]} - failed):
                failed.add(user_id)
                await fail(ctx, user_id, "embed", exc.kind, str(exc))  # the embedding model's: not counted
            continue
        ctx.stats.count_embedding(1, result.prompt_tokens, result.cost_usd)
        await record_calls(ctx)
        vectors.update(zip(chunk, (tuple(v) for v in result.vectors), strict=True))

    def embedded(p: Proposal) -> Proposal:
        return replace(p, embedding=vectors[p.content]) if action_of(p).embedded else p

    passed = {user_id: o for user_id, o in ready.items() if user_id not in failed}
    for o in passed.values():
        o.proposals = [embedded(p) for p in o.proposals]
        o.held = [(embedded(p), reason) for p, reason in o.held]
    return passed
