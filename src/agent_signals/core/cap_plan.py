"""The plan of the write-time cap, pure: given a user's active inferred core signals (over the cap), the
user's own signals (shown to the model, never touched) and the model's reconciliation answer (or none),
what to merge and what to demote so that at most limits.CORE_CAP core signals stay.

The answer is checked against the handles the model was shown: a decision naming an unknown handle, one of
the user's own signals, or a handle twice rejects the whole answer (the plan says why: `invalid`). A merge
whose new text fails screening (screen.screen_text) is left out (`refused`), its signals kept as they are.
Whatever the answer leaves over the cap, or all of it when there is no usable answer, the deterministic rule
demotes: lowest retention first, oldest last-seen as tie-break."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from agent_signals.core.prompting.answers import InvalidAnswer, Merge, ReconcileAnswer
from agent_signals.core.prompting.prompts import CoreLine
from agent_signals.core.screening.screen import screen_text
from agent_signals.core.screening.signal_shape import ENGLISH
from agent_signals.core.text import normalize_content
from agent_signals.limits import CORE_CAP


@dataclass(frozen=True)
class CoreRow:
    """An active inferred core signal of the user, as the cap sees it."""

    signal_id: UUID
    content: str
    kind: str
    mentions: int
    last_seen_at: datetime
    retention: float
    snapshot: dict[str, Any]  # the row as its events record it
    new: bool  # created or changed by the write that crossed the cap


@dataclass(frozen=True)
class OwnRow:
    """A signal the user wrote (origin manual): shown to the model for context, never merged or demoted."""

    content: str
    kind: str


@dataclass(frozen=True)
class Shown:
    """What the reconciliation prompt shows: `c` handles for the core rows in order, `u` for the user's own."""

    core: tuple[CoreLine, ...]
    own: tuple[CoreLine, ...]


def shown(core: Sequence[CoreRow], own: Sequence[OwnRow]) -> Shown:
    return Shown(
        tuple(
            CoreLine(handle, r.content, r.kind, r.mentions, r.last_seen_at.date().isoformat(), r.new)
            for handle, r in _handles(core).items()
        ),
        tuple(CoreLine(f"u{i}", r.content, r.kind) for i, r in enumerate(own, start=1)),
    )


def same_core(before: Shown, core: Sequence[CoreRow], own: Sequence[OwnRow]) -> list[CoreRow] | None:
    """`core` in the order `before` gave them handles when it is the core set `before` showed (the same
    lines but for their handles: a signal written again may get another id, and so another place), else
    None (the core set changed: the answer to `before` does not apply)."""
    now = shown(core, own)
    if now.own != before.own or len(now.core) != len(before.core):
        return None
    rows: dict[CoreLine, list[CoreRow]] = {}
    for line, row in zip(now.core, core, strict=True):
        rows.setdefault(replace(line, handle=""), []).append(row)
    ordered = []
    for line in before.core:
        same = rows.get(replace(line, handle=""))
        if not same:
            return None
        ordered.append(same.pop(0))
    return ordered


@dataclass(frozen=True)
class PlannedMerge:
    survivor: CoreRow  # keeps its id, takes the new text and the others' evidence
    absorbed: tuple[CoreRow, ...]
    content: str


@dataclass(frozen=True)
class PlannedDemote:
    row: CoreRow
    reason: str  # "reconciler": the model's decision; "cap_rule": the deterministic rule


@dataclass(frozen=True)
class CapPlan:
    merges: tuple[PlannedMerge, ...] = ()
    demotes: tuple[PlannedDemote, ...] = ()  # the model's first, then the rule's
    refused: tuple[str, ...] = ()  # why each merge whose text failed screening was left out
    invalid: str | None = None  # why the answer was rejected as a whole (then the rule alone decides)
    kept: tuple[CoreRow, ...] = ()  # the core rows that stay core (merge survivors included)


def plan_cap(
    core: Sequence[CoreRow],
    own: Sequence[OwnRow],
    answer: ReconcileAnswer | None,
    cap: int = CORE_CAP,
    language: str = ENGLISH,
) -> CapPlan:
    """The merges and demotions that leave at most `cap` of `core`; the user's own rows are never in it.
    A merged text is screened as a signal in `language` (the signal language)."""
    handles = _handles(core)
    merges: list[PlannedMerge] = []
    demotes: list[PlannedDemote] = []
    refused: list[str] = []
    invalid = None
    if answer is not None:
        try:
            merges, demotes, refused = _check(
                answer, handles, {f"u{i}" for i in range(1, len(own) + 1)}, language
            )
        except InvalidAnswer as exc:
            merges, demotes, refused, invalid = [], [], [], exc.reason
    gone = {r.signal_id for m in merges for r in m.absorbed} | {d.row.signal_id for d in demotes}
    kept = [row for row in core if row.signal_id not in gone]
    excess = len(kept) - cap
    if excess > 0:
        for row in sorted(kept, key=lambda r: (r.retention, r.last_seen_at, str(r.signal_id)))[:excess]:
            demotes.append(PlannedDemote(row, "cap_rule"))
        ruled = {d.row.signal_id for d in demotes}
        kept = [row for row in kept if row.signal_id not in ruled]
    return CapPlan(tuple(merges), tuple(demotes), tuple(refused), invalid, tuple(kept))


def _handles(core: Sequence[CoreRow]) -> dict[str, CoreRow]:
    return {f"c{i}": row for i, row in enumerate(core, start=1)}


def _check(
    answer: ReconcileAnswer, handles: dict[str, CoreRow], own: set[str], language: str
) -> tuple[list[PlannedMerge], list[PlannedDemote], list[str]]:
    """The answer's merges and demotions; any decision off the handles shown rejects it all (InvalidAnswer).
    A merge whose text fails screening is left out (its signals are kept as they are)."""
    named: set[str] = set()
    merges: list[PlannedMerge] = []
    demotes: list[PlannedDemote] = []
    refused: list[str] = []
    for i, decision in enumerate(answer.decisions):
        group = decision.signals if isinstance(decision, Merge) else [decision.signal]
        for handle in group:
            if handle in own:
                raise InvalidAnswer(f"decisions.{i}: {handle} is the user's own signal", "")
            if handle not in handles:
                raise InvalidAnswer(f"decisions.{i}: unknown handle {handle!r}", "")
            if handle in named:
                raise InvalidAnswer(f"decisions.{i}: {handle} appears in two decisions", "")
            named.add(handle)
        if isinstance(decision, Merge):
            if not normalize_content(decision.content):
                raise InvalidAnswer(f"decisions.{i}.content: no text", "")
            if reason := screen_text(decision.content, language=language):
                refused.append(reason)
                continue
            rows = [handles[h] for h in group]
            survivor = max(rows, key=lambda r: (r.mentions, not r.new))  # the most reinforced, older first
            absorbed = tuple(r for r in rows if r is not survivor)
            merges.append(PlannedMerge(survivor, absorbed, " ".join(decision.content.split())))
        elif decision.action == "demote":
            demotes.append(PlannedDemote(handles[group[0]], "reconciler"))
    return merges, demotes, refused
