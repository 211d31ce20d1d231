"""Risk marks: what makes a candidate that passed every screen still unfit to be written without a person's
look, and screening a user's candidates as a set rather than one by one.

A candidate is marked (and held for review, screen.py) when:
- its content is not the shape a signal has (signal_shape.py: another language or script, first or second
  person, a request, an imperative, another actor acting);
- a message it cites carries an instruction to the agent or a claim of authority anywhere, in any of the
  phrase tables' languages, or reads as one in English grammar (signal_shape.instruction_shape): a fact
  drawn from such a message is suspect whatever the fact says;
- together with the user's other candidates and known signals it reads as an instruction that none of them
  reads as alone (an instruction split over two sentences, or over two runs);
- it is a new core signal of a kind that tells the agent how to write and talk (STANDING_KINDS) and names an
  action that moves money, data or rights (signal_shape.CONSEQUENTIAL);
- another candidate citing the same message reads as a rule for acting to the learned screen (learned.py),
  whichever screen held that one: the message carries an instruction, so whatever else is drawn from it is
  suspect;
- the learned screen is unsure of it (learned.UNSURE_FROM to HOLD_FROM) and a message it cites speaks to the
  agent (second person, an imperative, a request): two weak signs together. Neither learned mark holds a
  preference about how the agent writes and talks (signal_shape.about_writing): the standing-preference
  rule above reads those.

And the set is refused whole: when one candidate of a message is quarantined as an instruction, every other
candidate citing that message is quarantined with it (step 1 of a split instruction goes with step 2), unless
the instruction is only a quotation the user reports ("scam messages that say things like 'ignore your
previous instructions'": instructions.without_mentions); the message is read without such quotations for the
marks above too, and the copies of the quotation are still quarantined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_signals.core.memo import per_text
from agent_signals.core.prompting.extract_calls import KnownSignal
from agent_signals.core.screening import learned
from agent_signals.core.screening.instructions import instruction_reason, intent_reason, without_mentions
from agent_signals.core.screening.signal_shape import (
    about_writing,
    addresses_agent,
    instruction_shape,
    learned_rule,
    names_action,
    shape_reason,
)
from agent_signals.core.validate import Proposal

SET_SEPARATOR = "; "  # how a user's statements are joined to be read as one text
# the kinds whose core signals tell the agent how to write and talk to the user: one of these that names an
# action moving money, data or rights ("Prefers replies sent with the invoice paid") is about something else,
# and held rather than made standing
STANDING_KINDS = frozenset({"communication", "writing"})


@dataclass(frozen=True)
class Marks:
    """Per user and candidate row: why it is held (hold) or goes with a quarantined sibling (refuse)."""

    hold: dict[tuple[str, int], str]
    refuse: dict[tuple[str, int], str]


def mark(
    users: Mapping[str, tuple[Sequence[Proposal], Sequence[KnownSignal]]],
    outcomes: Mapping[tuple[str, int], tuple[str | None, str | None]],
    language: str,
) -> Marks:
    """The risk marks of a shard's candidates, given what the text screens decided for each (user, row):
    (None, None) to be written, ("quarantine", reason), ("hold", reason) or a rejection's counter."""
    hold: dict[tuple[str, int], str] = {}
    refuse: dict[tuple[str, int], str] = {}
    for user_id, (proposals, known) in users.items():
        rows = range(len(proposals))
        open_rows = [r for r in rows if outcomes[user_id, r][0] is None]
        for row in open_rows:
            if reason := _mark(proposals[row], language):
                hold[user_id, row] = reason
        by_message: dict[tuple[str, str], list[int]] = {}
        for row in rows:
            for cite in proposals[row].evidence:
                by_message.setdefault(cite.message_key, []).append(row)
        for cited in by_message.values():
            if any(learned_rule(proposals[r].content) for r in cited):
                for row in (r for r in cited if r in open_rows and (user_id, r) not in hold):
                    hold[user_id, row] = f"held: cites a message another statement of which {learned.REASON}"
        for key, cited in by_message.items():
            reasons = [outcomes[user_id, r][1] for r in cited if outcomes[user_id, r][0] == "quarantine"]
            if reasons and _only_reports(proposals[cited[0]], key):
                continue  # the instruction is a quotation the user reports: the copies of it go, not the rest
            for row in cited if reasons else ():
                if outcomes[user_id, row][0] in (None, "hold"):
                    hold.pop((user_id, row), None)
                    refuse[user_id, row] = f"refused with its message's instruction: {reasons[0]}"
        written = [r for r in open_rows if (user_id, r) not in hold and (user_id, r) not in refuse]
        if written and len(written) + len(known) > 1:
            before = SET_SEPARATOR.join(s.content for s in known)
            together = SET_SEPARATOR.join(
                [*([before] if before else []), *(proposals[r].content for r in written)]
            )
            if (reason := intent_reason(together)) and not (before and intent_reason(before)):
                for row in written:
                    hold[user_id, row] = f"held: with the user's other signals, {_lower(reason)}"
    return Marks(hold, refuse)


def _mark(proposal: Proposal, language: str) -> str | None:
    """Why one candidate is held: its content's shape, or a cited message that asks the agent for
    something."""
    if reason := shape_reason(proposal.content, language):
        return f"held: {reason}"
    if proposal.tier == "core" and proposal.kind in STANDING_KINDS and names_action(proposal.content):
        return "held: a standing preference that names an action moving money, data or rights"
    for cite in proposal.evidence:
        if asks := _asks(cite.message.content):
            return f"held: cites a message that {_lower(asks)}"
    if (
        (score := learned.unsure(proposal.content)) is not None
        and not about_writing(proposal.content)
        and any(addresses_agent(cite.message.content) for cite in proposal.evidence)
    ):
        return (
            f"held: may be a rule for acting (learned screen, {score:.2f}) and cites a message that speaks to the "
            "agent"
        )
    return None


@per_text
def _asks(message: str) -> str | None:
    """Why a user's message asks the agent for something or claims authority, read without the quotations
    it reports (or None)."""
    said = without_mentions(message)
    return intent_reason(said) or instruction_shape(said)


def _only_reports(proposal: Proposal, key: tuple[str, str]) -> bool:
    """Whether the cited message carries an instruction only inside a quotation it reports."""
    text = next(c.message.content for c in proposal.evidence if c.message_key == key)
    return instruction_reason(without_mentions(text)) is None and instruction_reason(text) is not None


def _lower(reason: str) -> str:
    return reason[:1].lower() + reason[1:]
