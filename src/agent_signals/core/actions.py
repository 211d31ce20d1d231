"""The vocabulary of the write path, each word declared once: the action kinds an extraction answer may hold
(ACTIONS) and what a run counts (Count).

An action kind says what its answer looks like (core/prompting/answers.py), how it is validated into a proposal
(core/validate.py), how the writer applies that proposal (its handler, given the candidate as a Write:
store/shard_writer.py), whether its text is embedded, whether it may wait for review, what it may be
counted as and which of those counts mean the answer's summary no longer describes what was written, and
from which version of prompts/extract on the model is offered it. What depends on the kinds reads them
here: the answer's validation (outcome.validate_answer), the quality gate's value set
(adapters/expectations.py), the writer's dispatch, the embedding, the review hold and the summary's
spoilers (stages/); tests/test_actions.py holds each shipped prompt's schema to the kinds its version
offers. docs/architecture.md says how to add one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel

from agent_signals.config import Settings
from agent_signals.core.prompting.answers import AnsweredAction, Create, End, Skip, Update
from agent_signals.core.prompting.extract_calls import Call
from agent_signals.core.validate import Proposal, propose_end, propose_fact


class Count(StrEnum):
    """What a run counts, the keys of its actions (RunStats.actions, ops.runs.actions). The values are stored
    and documented: a name is never changed, only added."""

    # what the write did with a candidate
    CREATED = "created"
    UPDATED = "updated"  # a fact changed: its new version written, the old one ended
    REINFORCED = "reinforced"  # a known signal restated: its evidence grew
    UNCHANGED = "unchanged"  # a restatement that cites no new message (a replay)
    FILLED = "filled"  # a restatement gave a known signal a start, an end or a scope it lacked
    ENDED = "ended"  # a fact stopped holding (an end, a created fact already over, or decay)
    ARCHIVED = "archived"  # too old to stay active (at creation, or by decay)
    HELD_FOR_REVIEW = "held_for_review"  # written pending: a reviewer decides
    RESTATED_PENDING = "restated_pending"  # a signal waiting for review restated: it stays pending
    SKIPPED_MANUAL = "skipped_manual"  # restates the user's own signal: the user's word wins
    SKIPPED_TOMBSTONE = "skipped_tombstone"  # restates a signal the user deleted
    SKIPPED_REJECTED = "skipped_rejected"  # restates a signal a reviewer rejected
    SKIPPED_HELD = "skipped_held"  # held for review, and restates a signal agents read: not written
    SKIPPED_END = "skipped_end"  # ends a signal no longer active (removed, merged or ended since the prompt)
    QUARANTINED = "quarantined"
    SUMMARIZED_INLINE = "summarized_inline"  # the answer's summary written with the signals
    # the core cap
    MERGED = "merged"
    DEMOTED = "demoted"
    RECONCILE_INVALID = "reconcile_invalid"
    RECONCILE_FAILED = "reconcile_failed"
    RECONCILE_STALE = "reconcile_stale"
    MERGE_REFUSED = "merge_refused"
    # validation, screening and the quality gate
    SKIPPED = "skipped"  # the model's own `skip`
    REJECTED_INVALID = "rejected_invalid"
    FIELDS_DROPPED = "fields_dropped"  # an optional field left out, the action kept
    SKIPPED_SENSITIVE = "skipped_sensitive"
    SKIPPED_SPECIAL = "skipped_special"
    SKIPPED_RECALL = "skipped_recall"
    SKIPPED_REVIEW = "skipped_review"  # held for review, rejected instead
    SUMMARY_REFUSED = "summary_refused"
    REJECTED_GATE = "rejected_gate"
    # the messages read
    MESSAGES_HIDDEN_TEXT = "messages_hidden_text"
    MESSAGES_CUT = "messages_cut"
    MESSAGES_SET_ASIDE = "messages_set_aside"
    # upkeep after the writes
    RETRACTED = "retracted"
    SUMMARIZED = "summarized"
    SUMMARY_REPLACED = "summary_replaced"
    SUMMARY_DROPPED = "summary_dropped"
    SLICES_ALREADY_DONE = "slices_already_done"


class Write(Protocol):
    """One candidate in a round of the writer (store/shard_writer.py), as its kind's handler sees it: the
    proposal, whether the signal it names (its target) is still the user's active inferred signal, and what
    the round can do with it."""

    proposal: Proposal
    live: bool

    def count(self, counter: Count) -> None:
        """Counted for the user, nothing written."""

    def end_target(self) -> None:
        """The target stops holding at the proposal's valid_to (apply_validity.sql: end)."""

    def restate_target(self) -> None:
        """The target restated: its evidence grows, and what the proposal says of its days and scope fills
        what it lacks."""

    def state_fact(self, *, replaces_target: bool) -> None:
        """The fact the proposal states: a known signal restated (the same text, the user's own of an
        exclusive kind, or the nearest in meaning), else a new signal; `replaces_target`: the target's version
        ends where this one begins (never overwritten)."""


def _write_create(w: Write) -> None:
    w.state_fact(replaces_target=False)


def _write_update(w: Write) -> None:
    p = w.proposal
    if w.live and p.target is not None and p.normalized == p.target.normalized:
        w.restate_target()  # the text its signal already has: a restatement
    else:  # the fact changed; when its signal changed since the prompt was built, a new fact
        w.state_fact(replaces_target=w.live)


def _write_end(w: Write) -> None:
    if w.live:
        w.end_target()
    else:
        w.count(Count.SKIPPED_END)  # removed, merged or ended since the prompt


Propose = Callable[[AnsweredAction, Call, Settings], Proposal]  # raises validate.Invalid


@dataclass(frozen=True)
class ActionKind:
    name: str  # the answer's `action`
    answer: type[BaseModel]  # its model in an extraction answer (core/prompting/answers.py)
    since: int  # the first version of prompts/extract whose schema offers it
    propose: Propose | None = None  # its validation; None: it writes nothing (counted `skipped`)
    write: Callable[[Write], None] | None = None  # its handler in the writer's rounds
    embedded: bool = False  # it writes a new text, whose embedding resolves it against the known signals
    waits: bool = False  # held for review, it waits as a pending signal (else it is rejected)
    counts: tuple[Count, ...] = ()  # what a candidate of it may be counted as
    spoils: frozenset[Count] = frozenset()  # of those, the counts after which the summary no longer holds


# what a fact stated may be counted as (restated, created, held), and which of those spoil the summary
STATED = (
    Count.CREATED,
    Count.REINFORCED,
    Count.UNCHANGED,
    Count.FILLED,
    Count.ARCHIVED,
    Count.ENDED,
    Count.HELD_FOR_REVIEW,
    Count.RESTATED_PENDING,
    Count.SKIPPED_HELD,
    Count.SKIPPED_MANUAL,
    Count.SKIPPED_TOMBSTONE,
    Count.SKIPPED_REJECTED,
)
STATED_SPOILERS = frozenset(
    {
        Count.ENDED,
        Count.RESTATED_PENDING,
        Count.SKIPPED_MANUAL,
        Count.SKIPPED_TOMBSTONE,
        Count.SKIPPED_REJECTED,
    }
)

KINDS = (
    ActionKind(
        "create",
        Create,
        since=1,
        propose=propose_fact,
        write=_write_create,
        embedded=True,
        waits=True,
        counts=STATED,
        spoils=STATED_SPOILERS,
    ),
    ActionKind(
        "update",
        Update,
        since=1,
        propose=propose_fact,
        write=_write_update,
        embedded=True,
        waits=True,
        counts=(Count.UPDATED, *STATED),
        spoils=STATED_SPOILERS,
    ),
    ActionKind(
        "end",
        End,
        since=4,
        propose=propose_end,
        write=_write_end,
        counts=(Count.ENDED, Count.FILLED, Count.SKIPPED_END),
        spoils=frozenset({Count.ENDED, Count.SKIPPED_END}),
    ),
    ActionKind("skip", Skip, since=1, counts=(Count.SKIPPED,)),
)
ACTIONS = {kind.name: kind for kind in KINDS}
WRITTEN = tuple(kind.name for kind in KINDS if kind.propose is not None)  # what a proposal's action may be
EMBEDDED = tuple(kind.name for kind in KINDS if kind.embedded)
# Counts after which the model's summary no longer describes what was written: the kinds', and the core cap's.
SUMMARY_SPOILERS = frozenset().union(
    *(kind.spoils for kind in KINDS),
    {Count.MERGED, Count.DEMOTED, Count.RECONCILE_INVALID, Count.RECONCILE_FAILED},
)


def action_of(proposal: Proposal) -> ActionKind:
    return ACTIONS[proposal.action]


def offered(version: int) -> tuple[str, ...]:
    """The kinds version `version` of prompts/extract offers the model (its schema's)."""
    return tuple(kind.name for kind in KINDS if kind.since <= version)
