"""Risk marks: what makes a candidate that passed every screen still unfit to be written without a person's
look, and screening a user's candidates as a set rather than one by one.

A candidate is marked (and held for review, screen.py) when:
- its content is not the shape a signal has (signal_shape.py: another language or script, first or second
  person, a request, an imperative, another actor acting);
- a message it cites carries an instruction to the agent or a claim of authority anywhere, in any of the
  phrase tables' languages, or reads as one in English grammar (signal_shape.instruction_shape): a fact
  drawn from such a message is suspect whatever the fact says;
- together with the user's other candidates and known signals it reads as an instruction that none of them
  reads as alone (an instruction split over two sentences, or over two runs).

And the set is refused whole: when one candidate of a message is quarantined as an instruction, every other
candidate citing that message is quarantined with it (step 1 of a split instruction goes with step 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_signals.core.batching import KnownSignal
from agent_signals.core.instructions import intent_reason
from agent_signals.core.signal_shape import instruction_shape, shape_reason
from agent_signals.core.validate import Proposal

SET_SEPARATOR = "; "  # how a user's statements are joined to be read as one text


@dataclass(frozen=True)
class Marks:
    """Per user and candidate row: why it is held (hold) or goes with a quarantined sibling (refuse)."""

    hold: dict[tuple[str, int], str]
    refuse: dict[tuple[str, int], str]


def mark(
    users: Mapping[str, tuple[Sequence[Proposal], Sequence[KnownSignal]]],
    quarantined: Mapping[tuple[str, int], str],
    language: str,
) -> Marks:
    """The risk marks of a shard's candidates (`quarantined`: the rows the text screens already quarantine
    as instructions, with their reasons)."""
    shapes: dict[str, str | None] = {}
    messages: dict[str, str | None] = {}
    hold: dict[tuple[str, int], str] = {}
    refuse: dict[tuple[str, int], str] = {}
    for user_id, (proposals, known) in users.items():
        by_message: dict[tuple[str, str], list[int]] = {}
        for row, proposal in enumerate(proposals):
            for cite in proposal.evidence:
                key = (cite.message.conversation_id, cite.message.message_id)
                by_message.setdefault(key, []).append(row)
        for row, proposal in enumerate(proposals):
            if (user_id, row) in quarantined:
                continue
            if proposal.content not in shapes:
                shapes[proposal.content] = shape_reason(proposal.content, language)
            if reason := shapes[proposal.content]:
                hold[user_id, row] = f"held: {reason}"
                continue
            for cite in proposal.evidence:
                text = cite.message.content
                if text not in messages:
                    messages[text] = intent_reason(text) or instruction_shape(text)
                if messages[text]:
                    hold[user_id, row] = f"held: cites a message that {_lower(messages[text])}"
                    break
        for rows in by_message.values():
            reasons = [quarantined[user_id, r] for r in rows if (user_id, r) in quarantined]
            if reasons:
                for row in rows:
                    if (user_id, row) not in quarantined:
                        hold.pop((user_id, row), None)
                        refuse[user_id, row] = f"refused with its message's instruction: {reasons[0]}"
        out = set(quarantined) | set(refuse)
        written = [r for r in range(len(proposals)) if (user_id, r) not in out]
        if written and not any((user_id, r) in hold for r in written):
            before = SET_SEPARATOR.join(s.content for s in known)
            together = SET_SEPARATOR.join([before, *(proposals[r].content for r in written)] if before else
                                          [proposals[r].content for r in written])  # fmt: skip
            if (reason := intent_reason(together)) and not (before and intent_reason(before)):
                for row in written:
                    hold[user_id, row] = f"held: with the user's other signals, {_lower(reason)}"
    return Marks(hold, refuse)


def _lower(reason: str) -> str:
    return reason[:1].lower() + reason[1:]
