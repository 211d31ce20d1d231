"""Semantic validation of a parsed answer against the call it answers. Any violation rejects the whole
answer (InvalidAnswer): nothing is written for that user and the failure is recorded for the next run."""

from __future__ import annotations

from dataclasses import dataclass

from agent_signals.answers import Create, ExtractAnswer, InvalidAnswer, Update
from agent_signals.config import Settings
from agent_signals.extract import Call, KnownSignal, SourceMessage
from agent_signals.prompts import unfence
from agent_signals.text import clean, find_span, normalize_content

MAX_CONTENT_CHARS = 200


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


@dataclass(frozen=True)
class Validated:
    proposals: list[Proposal]
    skips: int


def validate_answer(answer: ExtractAnswer, call: Call, settings: Settings, raw: str) -> Validated:
    proposals: list[Proposal] = []
    skips = 0
    for i, action in enumerate(answer.actions):
        where = f"actions.{i}"
        if not isinstance(action, (Create, Update)):
            skips += 1
            continue
        if action.kind not in settings.kinds:
            raise InvalidAnswer(
                f"{where}.kind: {action.kind!r} is not one of {', '.join(settings.kinds)}", raw
            )
        content = " ".join(clean(action.content).split())
        if len(content) > MAX_CONTENT_CHARS:
            raise InvalidAnswer(f"{where}.content: longer than {MAX_CONTENT_CHARS} characters", raw)
        normalized = normalize_content(content)
        if not normalized:
            raise InvalidAnswer(f"{where}.content: no text", raw)
        target = None
        if isinstance(action, Update):
            target = call.signals.get(action.signal)
            if target is None:
                raise InvalidAnswer(f"{where}.signal: unknown handle {action.signal!r}", raw)
            if target.origin == "manual":
                raise InvalidAnswer(f"{where}.signal: {action.signal} is the user's own signal", raw)
        cites = []
        for j, evidence in enumerate(action.evidence):
            message = call.messages.get(evidence.message)
            if message is None:
                raise InvalidAnswer(f"{where}.evidence.{j}.message: unknown handle {evidence.message!r}", raw)
            span = cited_span(evidence.quote, message)
            if span is None:
                raise InvalidAnswer(
                    f"{where}.evidence.{j}.quote: not in message {evidence.message}: {evidence.quote[:80]!r}",
                    raw,
                )
            cites.append(Cite(message, span))
        proposals.append(
            Proposal(action.action, content, normalized, action.tier, action.kind, tuple(cites), target)
        )
    return Validated(proposals, skips)


def cited_span(quote: str, message: SourceMessage) -> str | None:
    """The span of the message's (cleaned) text that a quote cites: the quote as the prompt showed it
    (fenced), or else as the model may have written it back unescaped; cleaned like the message."""
    return find_span(clean(unfence(quote)), message.content) or find_span(clean(quote), message.content)
