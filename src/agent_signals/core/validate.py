"""Semantic validation of a parsed answer against the call it answers, action by action: a valid action
becomes a Proposal, an invalid one a Rejection (recorded in ops.rejected_actions, never written), and the
user's valid actions are applied all the same. Only an answer that cannot be parsed at all (answers.py:
InvalidAnswer) writes nothing for that user."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_signals.config import Settings
from agent_signals.core.answers import AnsweredAction, Create, ParsedExtract, Update
from agent_signals.core.batching import Call, KnownSignal, SourceMessage
from agent_signals.core.prompts import unfence
from agent_signals.core.text import clean, find_span, normalize_content
from agent_signals.limits import CONTENT_MAX_CHARS


@dataclass(frozen=True)
class Cite:
    message: SourceMessage
    quote: str


@dataclass(frozen=True)
class Proposal:
    """A validated create or update, with handles resolved to database rows."""

    action: str  # "create" | "update"
    content: str
    normalized: str
    tier: str
    kind: str
    evidence: tuple[Cite, ...]
    target: KnownSignal | None = None  # the signal an update names
    embedding: tuple[float, ...] | None = None  # set after validation, before apply
    agent_id: str | None = None  # None: a profile signal; else the agent whose relationship it is about
    written: Any = field(default=None, compare=False)  # the action as the model wrote it (JSON)


WITHHELD = "[withheld]"  # the text of a candidate rejected for what it holds


@dataclass(frozen=True)
class Rejection:
    """An action that is not written, and why: it failed validation, screening or the quality gate."""

    stage: str  # "validate" | "screen" | "gate"
    reason: str
    written: Any  # the action as the model wrote it (JSON)
    cites: tuple[SourceMessage, ...] = ()  # the messages its evidence named

    @classmethod
    def of(cls, proposal: Proposal, stage: str, reason: str, withhold: bool = False) -> Rejection:
        """`withhold`: the action was rejected for what its text holds (a secret, a special category), so
        its texts are not kept at all, redaction or not: only its shape, the messages it cited and why."""
        written = proposal.written
        if withhold:
            written = {"action": proposal.action, "content": WITHHELD, "tier": proposal.tier,
                       "kind": proposal.kind, "evidence": [{"quote": WITHHELD} for _c in proposal.evidence]}  # fmt: skip
        if written is None:
            written = {"action": proposal.action, "content": proposal.content, "tier": proposal.tier,
                       "kind": proposal.kind, "evidence": [{"quote": c.quote} for c in proposal.evidence]}  # fmt: skip
        return cls(stage, reason, written, tuple(c.message for c in proposal.evidence))


@dataclass
class Validated:
    proposals: list[Proposal] = field(default_factory=list)
    skips: int = 0  # actions that were `skip`
    rejected: list[Rejection] = field(default_factory=list)


class _Invalid(Exception):
    """One action breaks a rule (the message says where and which)."""


def validate_answer(answer: ParsedExtract, call: Call, settings: Settings) -> Validated:
    """Judge each action of the answer on its own."""
    result = Validated()
    for item in answer.actions:
        if item.action is None:
            result.rejected.append(Rejection("validate", item.error or "wrong schema", item.written,
                                             _named(item.written, call)))  # fmt: skip
        elif not isinstance(item.action, (Create, Update)):
            result.skips += 1
        else:
            try:
                result.proposals.append(_proposal(item, item.action, call, settings))
            except _Invalid as exc:
                result.rejected.append(
                    Rejection("validate", str(exc), item.written, _named(item.written, call))
                )
    return result


def _proposal(item: AnsweredAction, action: Create | Update, call: Call, settings: Settings) -> Proposal:
    where = f"actions.{item.index}"
    if action.kind not in settings.kinds:
        raise _Invalid(f"{where}.kind: {action.kind!r} is not one of {', '.join(settings.kinds)}")
    content = " ".join(clean(action.content).split())
    if len(content) > CONTENT_MAX_CHARS:
        raise _Invalid(f"{where}.content: longer than {CONTENT_MAX_CHARS} characters")
    normalized = normalize_content(content)
    if not normalized:
        raise _Invalid(f"{where}.content: no text")
    target = None
    if isinstance(action, Update):
        target = call.signals.get(action.signal)
        if target is None:
            raise _Invalid(f"{where}.signal: unknown handle {action.signal!r}")
        if target.origin == "manual":
            raise _Invalid(f"{where}.signal: {action.signal} is the user's own signal")
    cites = []
    for j, evidence in enumerate(action.evidence):
        message = call.messages.get(evidence.message)
        if message is None:
            raise _Invalid(f"{where}.evidence.{j}.message: unknown handle {evidence.message!r}")
        span = cited_span(evidence.quote, message)
        if span is None:
            raise _Invalid(f"{where}.evidence.{j}.quote: not in message {evidence.message}")
        cites.append(Cite(message, span))
    agent_id = _agent_of(where, action, cites, target)
    tier = "contextual" if agent_id is not None else action.tier  # core is identity, the same for every agent
    return Proposal(action.action, content, normalized, tier, action.kind, tuple(cites), target,
                    agent_id=agent_id, written=item.written)  # fmt: skip


def _agent_of(
    where: str, action: Create | Update, cites: list[Cite], target: KnownSignal | None
) -> str | None:
    """The agent an action's signal belongs to (None: the profile). A signal of an agent cites only messages
    of that agent's conversations; an update keeps its signal's scope."""
    scope = action.scope or ("agent" if target is not None and target.agent_id is not None else "profile")
    if target is not None and (target.agent_id is not None) != (scope == "agent"):
        raise _Invalid(f"{where}.scope: {scope!r}, but its signal is of the "
                       f"{'agent' if target.agent_id else 'profile'} scope (an update keeps its scope)")  # fmt: skip
    if scope == "profile":
        return None
    agents = {c.message.agent_id for c in cites}
    if len(agents) != 1 or None in agents:
        raise _Invalid(f"{where}.scope: 'agent', but its evidence is not from the conversations of one agent")
    (agent_id,) = agents
    if target is not None and target.agent_id != agent_id:
        raise _Invalid(f"{where}.scope: its evidence is from another agent than its signal's")
    return agent_id


def cited_span(quote: str, message: SourceMessage) -> str | None:
    """The span of the message's (cleaned) text that a quote cites: the quote as the prompt showed it
    (fenced), or else as the model may have written it back unescaped. find_span reads the quote as it
    reads the message (invisible characters out, compatibility forms folded); the quote is not cleaned
    first, as NFKC would make a space and an accent of an acute accent written as an apostrophe."""
    return find_span(unfence(quote), message.content) or find_span(quote, message.content)


def _named(written: Any, call: Call) -> tuple[SourceMessage, ...]:
    """The messages of the call an action's evidence names, however malformed the action."""
    evidence = written.get("evidence") if isinstance(written, dict) else None
    if not isinstance(evidence, list):
        return ()
    handles = [e.get("message") for e in evidence if isinstance(e, dict)]
    named = {h: call.messages[h] for h in handles if isinstance(h, str) and h in call.messages}
    return tuple(named.values())
