"""Scope and validity accuracy of the evaluation: over the expected facts a signal found, is the signal's
scope right, and is the time it says the fact held right.

Each found expected fact is judged on one signal: the most similar of those credited with it (the signal
whose verdict it is first, then the first stored), so a fact that a reworded later version also cites is
judged on the version that states it. Pure functions over (fact, signal) pairs; documented in
docs/evaluation.md#scope-and-validity, tested in tests/test_evaluate.py.

- scope: a fact labelled profile (no `scope_hint`, or "profile") is right on a profile signal (agent_id
  null); one labelled "agent" on a signal of the agent of the conversation that states it.
- validity: valid_to inside the period of `valid_to_hint`, or null when the fact has none (it still holds:
  a model that ends a lasting fact is wrong); and, when the fact has a `valid_from_hint`, valid_from inside
  its period. valid_to is the first moment the fact no longer held, so the end of the period counts as
  inside it ("until March": 1 March to 1 April); valid_from is inside [start, end).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent_signals.evaluation.matching import GoldFact, StoredSignal, similarity

Pair = tuple[GoldFact, StoredSignal]


@dataclass(frozen=True)
class Tally:
    """How many pairs were checked and how many were right."""

    checked: int = 0
    right: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.right / self.checked if self.checked else None

    def as_dict(self) -> dict:
        accuracy = self.accuracy
        return {
            "checked": self.checked,
            "right": self.right,
            "accuracy": None if accuracy is None else round(accuracy, 4),
        }


def judged_pairs(
    facts: Sequence[GoldFact], signals: Sequence[StoredSignal], credited: Iterable[tuple[int, int, int]]
) -> list[Pair]:
    """One (fact, signal) pair per expected fact that a signal is credited with: the most similar signal
    (ties: the one whose verdict the fact is, rank 0; then the first). `credited` holds (signal, fact,
    rank) positions in `signals` and `facts`, as evaluate.matches() gives them; facts in their order."""
    best: dict[int, tuple[tuple[float, int, int], int]] = {}
    for s, f, rank in credited:
        if not facts[f].expected:
            continue
        key = (similarity(signals[s].content, facts[f].text), -min(rank, 1), -s)
        if f not in best or key > best[f][0]:
            best[f] = (key, s)
    return [(facts[f], signals[s]) for f, (_key, s) in sorted(best.items())]


def scope_right(fact: GoldFact, signal: StoredSignal) -> bool:
    """A profile fact stored in the profile, an agent's fact stored for that agent."""
    return signal.agent_id == fact.agent_id


def valid_to_right(fact: GoldFact, signal: StoredSignal) -> bool:
    """valid_to inside the hinted period (its end included), or null when there is no hint."""
    if fact.valid_to is None:
        return signal.valid_to is None
    return signal.valid_to is not None and fact.valid_to.start <= signal.valid_to <= fact.valid_to.end


def valid_from_right(fact: GoldFact, signal: StoredSignal) -> bool:
    """valid_from inside the hinted period; anything when there is no hint."""
    if fact.valid_from is None:
        return True
    return signal.valid_from is not None and fact.valid_from.start <= signal.valid_from < fact.valid_from.end


def validity_right(fact: GoldFact, signal: StoredSignal) -> bool:
    return valid_to_right(fact, signal) and valid_from_right(fact, signal)


def _tally(pairs: Iterable[Pair], right) -> Tally:
    verdicts = [bool(right(f, s)) for f, s in pairs]
    return Tally(len(verdicts), sum(verdicts))


def scope_tallies(pairs: Sequence[Pair]) -> dict[str, Tally]:
    """Scope accuracy over the judged pairs: all, and by label (profile, agent)."""
    return {
        "all": _tally(pairs, scope_right),
        "profile": _tally([p for p in pairs if p[0].agent_id is None], scope_right),
        "agent": _tally([p for p in pairs if p[0].agent_id is not None], scope_right),
    }


def validity_tallies(pairs: Sequence[Pair]) -> dict[str, Tally]:
    """Validity accuracy over the judged pairs: all (valid_to and, where hinted, valid_from), and each part:
    the facts with a valid_to hint, those without (valid_to must be null), those with a valid_from hint."""
    return {
        "all": _tally(pairs, validity_right),
        "valid_to": _tally([p for p in pairs if p[0].valid_to is not None], valid_to_right),
        "no_valid_to": _tally([p for p in pairs if p[0].valid_to is None], valid_to_right),
        "valid_from": _tally([p for p in pairs if p[0].valid_from is not None], valid_from_right),
    }
