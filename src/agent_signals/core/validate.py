"""Semantic validation of an answer's actions against the call they answer, each on its own: a valid action
becomes a Proposal, an invalid one a Rejection (recorded in ops.rejected_actions, never written), and the
user's valid actions are applied all the same (outcome.validate_answer judges an answer's actions). Only an
answer that cannot be parsed at all (answers.py: InvalidAnswer) writes nothing for that user."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, cast

from agent_signals.config import Settings
from agent_signals.core import validity
from agent_signals.core.prompting.answers import AnsweredAction, Bound, Create, End, Update
from agent_signals.core.prompting.extract_calls import Call, KnownSignal, SourceMessage
from agent_signals.core.prompting.prompts import unfence
from agent_signals.core.text import clean, find_span, normalize_content, speaks_of
from agent_signals.limits import CONTENT_MAX_CHARS


@dataclass(frozen=True)
class Cite:
    message: SourceMessage
    quote: str

    @property
    def message_key(self) -> tuple[str, str]:
        """The cited message: (conversation_id, message_id)."""
        return self.message.conversation_id, self.message.message_id


@dataclass(frozen=True)
class Proposal:
    """A validated action that writes (core/actions.py: create, update, end), with handles resolved to
    database rows (an end's text, tier and kind are its signal's)."""

    action: str  # the name of its action kind (core/actions.py: ACTIONS)
    content: str
    normalized: str
    tier: str
    kind: str
    evidence: tuple[Cite, ...]
    target: KnownSignal | None = None  # the signal an update names
    embedding: tuple[float, ...] | None = None  # set after validation, before apply
    agent_id: str | None = None  # None: a profile signal; else the agent whose relationship it is about
    # when the fact began and stopped holding (validity.py): a create's or update's valid_from is the day the
    # user named, else its first cited message's time (None: a past fact whose start was not said); valid_to
    # the day named, else None (an end's: its cited message's time)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    written: Any = field(default=None, compare=False)  # the action as the model wrote it (JSON)

    @property
    def said_at(self) -> datetime:
        """When the user said it: the latest of its cited messages."""
        return max(c.message.created_at for c in self.evidence)


WITHHELD = "[withheld]"  # the text of a candidate rejected for what it holds


@dataclass(frozen=True)
class Rejection:
    """An action that is not written, and why: it failed validation, screening or the quality gate."""

    stage: str  # "validate" | "screen" | "gate"
    reason: str
    written: Any  # the action as the model wrote it (JSON)
    cites: tuple[SourceMessage, ...] = ()  # the messages its evidence named
    kept: bool = False  # only a field was left out (a bound, the summary): the action or answer was kept

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


class Invalid(Exception):
    """One action breaks a rule (the message says where and which)."""


def propose_fact(item: AnsweredAction, call: Call, settings: Settings) -> Proposal:
    """A create's or an update's proposal (core/actions.py): a fact of a configured kind, its text cleaned,
    its handles resolved against what the call showed (an update's signal one of the pipeline's), its scope
    and days the ones its evidence supports. Raises Invalid."""
    action = cast(Create | Update, item.action)  # the kinds' registry dispatches by the action's name
    where = f"actions.{item.index}"
    if action.kind not in settings.run.kinds:
        raise Invalid(f"{where}.kind: {action.kind!r} is not one of {', '.join(settings.run.kinds)}")
    content = " ".join(clean(action.content).split())
    if len(content) > CONTENT_MAX_CHARS:
        raise Invalid(f"{where}.content: longer than {CONTENT_MAX_CHARS} characters")
    normalized = normalize_content(content)
    if not normalized:
        raise Invalid(f"{where}.content: no text")
    target = _target(where, action, call) if isinstance(action, Update) else None
    cites = _cites(where, action, call)
    agent_id = _agent_of(where, action, cites, target)
    tier = "contextual" if agent_id is not None else action.tier  # core is identity, the same for every agent
    valid_from, valid_to = _validity(where, action, cites)
    return Proposal(action.action, content, normalized, tier, action.kind, tuple(cites), target,
                    agent_id=agent_id, valid_from=valid_from, valid_to=valid_to, written=item.written)  # fmt: skip


def _target(where: str, action: Update | End, call: Call) -> KnownSignal:
    """The known signal an update or end names: one of the pipeline's, never the user's own."""
    target = call.signals.get(action.signal)
    if target is None:
        raise Invalid(f"{where}.signal: unknown handle {action.signal!r}")
    if target.origin == "manual":
        raise Invalid(f"{where}.signal: {action.signal} is the user's own signal")
    return target


def _cites(where: str, action: Create | Update | End, call: Call) -> list[Cite]:
    cites = []
    for j, evidence in enumerate(action.evidence):
        message = call.messages.get(evidence.message)
        if message is None:
            raise Invalid(f"{where}.evidence.{j}.message: unknown handle {evidence.message!r}")
        span = cited_span(evidence.quote, message)
        if span is None:
            raise Invalid(f"{where}.evidence.{j}.quote: not in message {evidence.message}")
        cites.append(Cite(message, span))
    return cites


def propose_end(item: AnsweredAction, call: Call, settings: Settings) -> Proposal:
    """An end's proposal (core/actions.py): a known fact that no longer holds, one of the pipeline's (never
    the user's own), named by a message that speaks of it (a shared word: a copied "none of this is true any
    more" ends nothing); its text, tier and kind are its signal's. Raises Invalid."""
    action = cast(End, item.action)
    where = f"actions.{item.index}"
    target = _target(where, action, call)
    cites = _cites(where, action, call)
    agent_id = _agent_of(where, action, cites, target)
    if not any(speaks_of(c.quote, target.content) for c in cites):
        raise Invalid(f"{where}.evidence: no quote speaks of {action.signal} (no word of it)")
    ended = _bound(f"{where}.until", action.until, cites)
    valid_to = ended if ended is not None else max(c.message.created_at for c in cites)
    return Proposal(action.action, target.content, target.normalized, target.tier, target.kind, tuple(cites),
                    target, agent_id=agent_id, valid_to=valid_to, written=item.written)  # fmt: skip


def _validity(
    where: str, action: Create | Update, cites: list[Cite]
) -> tuple[datetime | None, datetime | None]:
    """(valid_from, valid_to): the days the user named (`since`, `until`), each held to what its words can
    name on the day they were said; without `since`, the first cited message's time, unless the fact had
    already ended then (its start was not said)."""
    since = _bound(f"{where}.since", action.since, cites)
    until = _bound(f"{where}.until", action.until, cites)
    if since is not None and until is not None and until < since:
        raise Invalid(f"{where}.until: {action.until.date} is before since {action.since.date}")
    if since is None:
        first = min(c.message.created_at for c in cites)
        since = first if until is None or until >= first else None
    return since, until


def _bound(where: str, bound: Bound | None, cites: list[Cite]) -> datetime | None:
    """The day a bound names, at UTC midnight: its quote must be the words of a cited message, and its date a
    day those words can name on the day that message was sent (a fooled model's date is refused)."""
    if bound is None:
        return None
    try:
        day = date.fromisoformat(bound.date)
    except ValueError:
        raise Invalid(f"{where}.date: {bound.date!r} is not a day") from None
    # the words as the user wrote them, in each cited message that has them
    said = [(c.message, span) for c in cites if (span := cited_span(bound.quote, c.message)) is not None]
    if not said:
        raise Invalid(f"{where}.quote: not in a cited message")
    if not any(validity.supports(span, m.created_at, day) for m, span in said):
        raise Invalid(f"{where}.date: {bound.date} is not a time {bound.quote!r} names")
    return validity.day_start(day)


def _agent_of(
    where: str, action: Create | Update | End, cites: list[Cite], target: KnownSignal | None
) -> str | None:
    """The agent an action's signal belongs to (None: the profile). A signal of an agent cites only messages
    of that agent's conversations; an update or end keeps its signal's scope."""
    scope = getattr(action, "scope", None) or (
        "agent" if target is not None and target.agent_id is not None else "profile"
    )
    if target is not None and (target.agent_id is not None) != (scope == "agent"):
        raise Invalid(f"{where}.scope: {scope!r}, but its signal is of the "
                       f"{'agent' if target.agent_id else 'profile'} scope (an update keeps its scope)")  # fmt: skip
    if scope == "profile":
        return None
    agents = {c.message.agent_id for c in cites}
    if len(agents) != 1 or None in agents:
        raise Invalid(f"{where}.scope: 'agent', but its evidence is not from the conversations of one agent")
    (agent_id,) = agents
    if target is not None and target.agent_id != agent_id:
        raise Invalid(f"{where}.scope: its evidence is from another agent than its signal's")
    return agent_id


def cited_span(quote: str, message: SourceMessage) -> str | None:
    """The span of the message's (cleaned) text that a quote cites: the quote as the prompt showed it
    (fenced), or else as the model may have written it back unescaped. find_span reads the quote as it
    reads the message (invisible characters out, compatibility forms folded); the quote is not cleaned
    first, as NFKC would make a space and an accent of an acute accent written as an apostrophe."""
    return find_span(unfence(quote), message.content) or find_span(quote, message.content)
