"""The extract stage of a shard: one user's model call(s), each action of the answer validated into the
user's outcome (core/outcome.py: UserOutcome, which flows on to apply) and, after the last answer, the
user's candidates screened (what to write, quarantine, hold for review or reject), the summary an answer
gave kept only when it describes exactly what is written; the CPU work of this (rendering, counting,
parsing, validation, screening: core/user_work.py) is done in the run's worker processes
(stages/run/workers.py) while the event loop waits for the model; conclude then decides what of the held
can wait for review; extract_safely records a failing user and goes on;
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
from agent_signals.core import user_work
from agent_signals.core.actions import EMBEDDED, Count, action_of
from agent_signals.core.outcome import UserOutcome
from agent_signals.core.prompting.extract_calls import Call, UserMessages
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.stages import embed
from agent_signals.stages.run.calls import complete, record_calls
from agent_signals.stages.run.context import RunContext
from agent_signals.stages.run.failures import UserFailed, fail

log = redacting_logger(__name__)


async def extract_user(ctx: RunContext, user: UserMessages, started: dict[str, float]) -> UserOutcome:
    """One user's prompts, model call(s), and the answers judged and screened (the CPU work in the run's
    worker processes: core/user_work.py). At most IN_FLIGHT_PER_SLOT users a model slot have their prompts
    made and calls out; their answers are judged after, while the next users' calls go out. Raises
    UserFailed, or NotStarted before the first call."""
    async with ctx.pacing.users_in_flight:
        started[user.user_id] = time.monotonic()
        calls = await plan_calls(ctx, user)
        outcome = UserOutcome(user, ctx.provenance, calls=len(calls), figures=ctx.stats.actions)
        answers = []
        for index, call in enumerate(calls):
            if answers:  # an earlier call's answer, judged before the next call is made
                outcome = await judge(ctx, *answers.pop(), outcome)
            answers.append((call, await _ask(ctx, call, first=index == 0)))
    if answers:
        outcome = await judge(ctx, *answers.pop(), outcome, settle_after=True)
    return outcome


async def _ask(ctx: RunContext, call: Call, *, first: bool) -> str:
    """One call's answer, made in one of the AGENT_SIGNALS_CONCURRENCY model slots."""
    async with ctx.pacing.model_slots:
        if first and (ctx.budget_exhausted or ctx.stop.stopped):
            raise NotStarted("budget" if ctx.budget_exhausted else "stopped")
        try:
            return (await complete(ctx, call.prompt, "extract")).text
        except llm.ModelUnavailable as exc:  # transient faults are the model's, the others this prompt's
            counted = exc.kind not in TRANSIENT_MODEL_FAULTS
            read = list(call.messages.values())
            raise UserFailed("extract", exc.kind, str(exc), read, counted=counted) from exc


async def plan_calls(ctx: RunContext, user: UserMessages) -> list[Call]:
    """The user's prompts (user_work.plan), with the run's figures and warnings for what they show.
    Raises UserFailed when none can be built."""
    stats = ctx.stats
    calls = await ctx.workers.run_soon(user_work.plan, user, ctx.settings, ctx.until.date())
    if isinstance(calls, user_work.Refused):
        raise UserFailed(calls.stage, calls.kind, calls.message, user.messages)
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


async def judge(
    ctx: RunContext, call: Call, text: str, outcome: UserOutcome, *, settle_after: bool = False
) -> UserOutcome:
    """One call's answer parsed and each of its actions validated against what the call showed, into the
    user's outcome (the same for a direct answer and one read from a provider batch); with `settle_after`
    (the user's last answer), the outcome screened too (settled). Raises UserFailed for an answer that
    cannot be parsed, or a screen that fails."""
    judged = await ctx.workers.run(
        user_work.judge, call, text, ctx.settings, _sent(outcome), settle_after=settle_after
    )
    if isinstance(judged, user_work.Refused):
        read = list(call.messages.values()) if judged.stage == "validate" else outcome.read
        raise UserFailed(judged.stage, judged.kind, judged.message, read, raw=judged.raw)
    return _received(ctx, judged)


async def settled(ctx: RunContext, outcome: UserOutcome) -> UserOutcome:
    """The user's candidates screened and the answer's summary kept or dropped (user_work.settle), for an
    outcome whose answers were judged without it. Raises UserFailed for a screen that fails."""
    done = await ctx.workers.run(user_work.settle, _sent(outcome), ctx.settings)
    if isinstance(done, user_work.Refused):
        raise UserFailed(done.stage, done.kind, done.message, outcome.read)
    return _received(ctx, done)


def _sent(outcome: UserOutcome) -> UserOutcome:
    """The outcome as a worker gets it: without the run's figures (its counts come back in `figures`)."""
    outcome.figures = None
    return outcome


def _received(ctx: RunContext, outcome: UserOutcome) -> UserOutcome:
    """A worker's outcome back in the run: the counts it made added to the run's figures, which its next
    counts go to as they are made."""
    ctx.stats.actions.update(outcome.figures or {})
    outcome.figures = ctx.stats.actions
    return outcome


async def conclude(ctx: RunContext, outcomes: Sequence[UserOutcome | None]) -> dict[str, UserOutcome]:
    """The shard's screened users (None: failed or skipped, left out); a candidate screening held for review
    is rejected instead where it cannot wait (_not_held)."""
    answered = {o.user_id: o for o in outcomes if o is not None}
    for o in answered.values():
        held = []
        for p, reason in o.held:
            refused = _not_held(ctx, p)
            if refused is None:
                held.append((p, reason))
            else:
                o.count(Count.SKIPPED_REVIEW)
                o.rejected.append(Rejection.of(p, "screen", f"held for review, {refused}: {reason}"))
        o.held = held
    return answered


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
    budget is spent, users whose first call is not made yet are skipped (None): still pending, the next run
    takes them."""
    stats = ctx.stats
    if ctx.budget_exhausted or ctx.stop.stopped:
        stats.skipped_users["budget" if ctx.budget_exhausted else "stopped"] += 1
        return None
    stats.note_user(user.user_id)
    stats.messages += len(user.messages)
    stats.conversations += len({m.conversation_id for m in user.messages})

    def not_started(why: str) -> None:  # not this user's doing: no failure recorded, still pending
        stats.users -= 1
        stats.messages -= len(user.messages)
        stats.conversations -= len({m.conversation_id for m in user.messages})
        stats.skipped_users[why] += 1
        started.pop(user.user_id, None)

    try:
        return await extract_user(ctx, user, started)
    except NotStarted as exc:
        not_started(exc.why)
    except llm.ModelMisconfigured as exc:
        not_started("stopped")
        ctx.halt(exc)
    except UserFailed as exc:
        await fail(ctx, user.user_id, exc.stage, exc.kind, exc.message, exc.raw, read=exc.read,
                   counted=exc.counted)  # fmt: skip
    except Exception as exc:  # a bug: this user only
        log.exception("user %s failed at extract", user.user_id)
        await fail(ctx, user.user_id, "extract", type(exc).__name__, str(exc), read=user.messages,
                   counted=True)  # fmt: skip
    return None


class NotStarted(Exception):
    """The user's first call was not made: the run's budget is spent or the run stops (`why`)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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
