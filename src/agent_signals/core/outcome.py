"""One user's outcome of a shard's pass, from the model's answers to the write (UserOutcome): made when the
user's extraction starts, it flows unchanged through validation, screening, the quality gate, the embedding
and apply, each stage adding what it decided; and what a write is recorded with (Provenance)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from agent_signals.config import Settings
from agent_signals.core.actions import ACTIONS, Count
from agent_signals.core.prompting.answers import ParsedExtract
from agent_signals.core.prompting.extract_calls import Call, SourceMessage, UserMessages
from agent_signals.core.validate import Invalid, Proposal, Rejection


@dataclass(frozen=True)
class Provenance:
    """What a user's writes are recorded with: the run, and the prompt version and model that were asked."""

    run_id: UUID
    prompt_version: str
    model: str


@dataclass(eq=False)
class UserOutcome:
    """One user's pass through a shard, gaining fields stage by stage:

    - extract: the user (its messages: every message read, the signals it knows), the provenance its writes are
      recorded with, the provider batch its answers were read from, how many prompts were asked;
    - validate (validate_answer): the proposals, the actions rejected, the answer's summary;
    - screen (core/screening/screen.py): the proposals kept (their quotes redacted), quarantined, held for review or
      rejected; the summary dropped once it no longer describes exactly what gets written;
    - quality gate (reject): the candidates it refused;
    - embed: the candidates' embeddings;
    - apply (stages/apply.py): its candidates written, the rest recorded, its watermarks moved.

    `counts` says what the stages counted for the user; each count is also added, as it is made, to
    `figures` (the run's RunStats.actions) when there is one."""

    user_messages: UserMessages
    prov: Provenance | None = None  # None only before anything is asked (a test's, a benchmark's)
    batch_key: UUID | None = None  # answers read from a provider batch: the batch its write closes
    calls: int = 0  # the prompts its answers came from
    proposals: list[Proposal] = field(default_factory=list)  # to write
    rejected: list[Rejection] = field(default_factory=list)  # not written, recorded with why
    summary: str | None = None  # the answer's summary, while it describes exactly what gets written
    quarantine: list[tuple[Proposal, str]] = field(default_factory=list)  # ops.quarantine, with why
    # held for review, with why: written as signals of status pending (AGENT_SIGNALS_REVIEW=hold)
    held: list[tuple[Proposal, str]] = field(default_factory=list)
    counts: Counter[Count] = field(default_factory=Counter)
    figures: Counter[Any] | None = field(default=None, repr=False)

    @property
    def user_id(self) -> str:
        return self.user_messages.user_id

    @property
    def read(self) -> list[SourceMessage]:
        """Every message the user's extraction read: the watermarks move past them."""
        return self.user_messages.messages

    @property
    def candidates(self) -> list[tuple[Proposal, str | None]]:
        """What gets written, in order: the proposals, then those held for review (with why)."""
        return [*((p, None) for p in self.proposals), *self.held]

    def count(self, counter: Count, n: int = 1) -> None:
        if n:
            self.counts[counter] += n
            if self.figures is not None:
                self.figures[counter] += n

    def reject(self, reasons: Mapping[int, str], stage: str, counter: Count) -> None:
        """These candidates (by index in `candidates`) rejected at `stage`, each counted as `counter`; the
        answer's summary no longer describes the rest."""
        candidates, first_held = self.candidates, len(self.proposals)
        self.proposals = [p for i, p in enumerate(self.proposals) if i not in reasons]
        self.held = [h for i, h in enumerate(self.held, start=first_held) if i not in reasons]
        self.rejected += [Rejection.of(candidates[i][0], stage, r) for i, r in sorted(reasons.items())]
        self.summary = None
        self.count(counter, len(reasons))


def validate_answer(
    answer: ParsedExtract, call: Call, settings: Settings, outcome: UserOutcome | None = None
) -> UserOutcome:
    """Judge each action of one call's answer on its own, by its kind's validation (core/actions.py), adding
    the proposals, the rejected actions and the answer's summary to the user's outcome (a new one when None
    is given)."""
    outcome = outcome if outcome is not None else UserOutcome(UserMessages(""))
    proposals: list[Proposal] = []
    rejected: list[Rejection] = []
    skips = 0
    if answer.dropped_summary:
        rejected.append(Rejection("validate", answer.dropped_summary, {"summary": None}, kept=True))
    for item in answer.actions:
        named = _named(item.written, call)
        rejected += [Rejection("validate", reason, item.written, named, kept=True) for reason in item.dropped]
        if item.action is None:
            rejected.append(Rejection("validate", item.error or "wrong schema", item.written, named))
        elif (propose := ACTIONS[item.action.action].propose) is None:
            skips += 1
        else:
            try:
                proposals.append(propose(item, call, settings))
            except Invalid as exc:
                rejected.append(Rejection("validate", str(exc), item.written, named))
    outcome.proposals += proposals
    outcome.rejected += rejected
    outcome.summary = answer.summary
    outcome.count(Count.SKIPPED, skips)
    outcome.count(Count.REJECTED_INVALID, sum(1 for r in rejected if not r.kept))
    outcome.count(Count.FIELDS_DROPPED, sum(1 for r in rejected if r.kept))
    return outcome


def _named(written: Any, call: Call) -> tuple[SourceMessage, ...]:
    """The messages of the call an action's evidence names, however malformed the action."""
    evidence = written.get("evidence") if isinstance(written, dict) else None
    if not isinstance(evidence, list):
        return ()
    handles = [e.get("message") for e in evidence if isinstance(e, dict)]
    named = {h: call.messages[h] for h in handles if isinstance(h, str) and h in call.messages}
    return tuple(named.values())
