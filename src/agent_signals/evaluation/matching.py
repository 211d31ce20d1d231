"""The matcher of the evaluation (and of `replay`): when a stored signal states a gold fact.

Documented in docs/evaluation.md and tested in tests/test_evaluate.py:
- a stored signal matches a gold fact of its user when it cites at least one of the fact's evidence
  messages AND the texts are similar: the overlap coefficient of their content-word stems,
  |A ∩ B| / min(|A|, |B|), is at least TEXT_SIMILARITY (pronouns, auxiliaries and stop words removed,
  crude suffix stemming), so "Has a son in junior high" matches "My son is in junior high." and a second
  fact cited by the same message does not steal the match. The most similar fact is the signal's match
  (precision: one verdict per signal).
- recall credits a signal with EVERY fact of its user it matches that way (credits()), not only the
  most similar: a signal that consolidates statements ("Likes Styx and Journey", citing the message of
  each) finds each fact it states.
- a signal that matches no fact of its user but states one of the user's distractor facts (said by the
  other speaker: at least two content-word stems in common and a Jaccard similarity of at least
  WRONG_SPEAKER_SIMILARITY) counts as wrong-speaker.

A gold fact may also carry its scope (profile, or the agent of the conversation that states it) and the
periods its validity began and ended in (period(): a year, a month or a day); evaluation.accuracy scores
the matched signals' agent_id, valid_from and valid_to against them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

TEXT_SIMILARITY = 0.34
WRONG_SPEAKER_SIMILARITY = 0.5

_WORD = re.compile(r"[a-z0-9]+")
_IGNORED = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "and",
        "or",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "as",
        "about",
        "into",
        "than",
        "then",
        "so",
        "very",
        "really",
        "just",
        "also",
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "we",
        "us",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "having",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "some",
        "much",
        "many",
        "more",
        "most",
        "own",
        "same",
        "other",
        "such",
        "only",
        "too",
        "out",
        "up",
        "down",
        "over",
        "again",
        "once",
        "get",
        "got",
        "like",
        "likes",
        "liked",
        "love",
        "loves",
        "loved",
        "user",
        "users",
    ]
)


def stems(text: str) -> frozenset[str]:
    """Content-word stems: lower case, stop words and pronouns out, a few English suffixes off."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in _IGNORED:
            continue
        for suffix in ("ies", "ing", "es", "ed", "s"):
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        for ending in ("ie", "y", "e"):  # movie/movies, hobby/hobbies, game/games end alike
            if len(word) > len(ending) + 2 and word.endswith(ending):
                word = word[: -len(ending)]
                break
        out.add(word)
    return frozenset(out)


def similarity(a: str, b: str) -> float:
    """Overlap coefficient of content-word stems (0 when either side has none)."""
    x, y = stems(a), stems(b)
    if not x or not y:
        return 0.0
    return len(x & y) / min(len(x), len(y))


MessageKey = tuple[str, str]  # (conversation_id, message_id)

_HINT = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


@dataclass(frozen=True)
class Period:
    """A labelled period of validity, in UTC: a year ("2025"), a month ("2027-03") or a day ("2026-10-01"),
    from `start` to `end`, the first moment after it."""

    label: str
    start: datetime
    end: datetime


def period(hint: str) -> Period:
    """The period a validity hint names ("YYYY", "YYYY-MM" or "YYYY-MM-DD"); ValueError for anything else."""
    found = _HINT.fullmatch(hint) if isinstance(hint, str) else None
    if found is None:
        raise ValueError(f"{hint!r} is not YYYY, YYYY-MM or YYYY-MM-DD")
    year, month, day = int(found[1]), int(found[2] or 1), int(found[3] or 1)
    start = datetime(year, month, day, tzinfo=UTC)  # ValueError for a month or day that does not exist
    if found[3]:
        end = datetime.fromordinal(start.toordinal() + 1).replace(tzinfo=UTC)
    elif found[2]:
        end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    else:
        end = datetime(year + 1, 1, 1, tzinfo=UTC)
    return Period(hint, start, end)


@dataclass(frozen=True)
class GoldFact:
    fact_id: str
    user_id: str
    text: str
    expected: bool
    evidence: frozenset[MessageKey]
    kind: str | None = None
    tier: str | None = None
    negative_kind: str | None = None
    agent_id: str | None = None  # scope_hint "agent": the agent of its conversations; None: the profile
    valid_from: Period | None = None  # valid_from_hint: the period the fact began to hold in
    valid_to: Period | None = None  # valid_to_hint: the period it stopped holding in; None: it still holds


@dataclass(frozen=True)
class StoredSignal:
    signal_id: str
    user_id: str
    content: str
    kind: str
    tier: str
    evidence: frozenset[MessageKey]
    agent_id: str | None = None  # None: a profile signal
    valid_from: datetime | None = None
    valid_to: datetime | None = None


def credits(signal: StoredSignal, facts: Iterable[GoldFact]) -> list[GoldFact]:
    """Every gold fact this signal states: of its user, sharing an evidence message, similar enough in
    text; the most similar first (ties: the higher fact id, as match() picks)."""
    scored = []
    for fact in facts:
        if fact.user_id != signal.user_id or not (fact.evidence & signal.evidence):
            continue
        score = similarity(signal.content, fact.text)
        if score >= TEXT_SIMILARITY:
            scored.append(((score, fact.fact_id), fact))
    return [fact for _key, fact in sorted(scored, key=lambda pair: pair[0], reverse=True)]


def match(signal: StoredSignal, facts: Iterable[GoldFact]) -> GoldFact | None:
    """The gold fact this signal states best: the most similar of credits()."""
    return next(iter(credits(signal, facts)), None)


def wrong_speaker(signal: StoredSignal, distractors: Iterable[GoldFact]) -> bool:
    """The signal states one of the other speaker's facts: at least two content-word stems in common and a
    Jaccard similarity of WRONG_SPEAKER_SIMILARITY or more (stricter than matching a fact: both speakers
    often talk about one topic, "Likes to hike" / "I love to hike", and that is not a wrong speaker)."""
    mine = stems(signal.content)
    for d in distractors:
        theirs = stems(d.text)
        shared = len(mine & theirs)
        if (
            d.user_id == signal.user_id
            and shared >= 2
            and shared / len(mine | theirs) >= WRONG_SPEAKER_SIMILARITY
        ):
            return True
    return False
