"""A learned screen: how likely a short English statement is a rule for the agent to act on (pay, grant,
send, delete, skip a check, act for someone) rather than a fact about the user, scored by a linear model
trained on the development corpora (training/instruction_model.py; the model is package data).

The rule-based screens read the forms an instruction takes that someone wrote a rule for; this reads the
statement as a whole, so it holds paraphrases no rule names (docs/guarantees.md has its figures on a set
written blind after it was trained). It scores the English statements a model writes (signal content);
its features are scikit-learn's hashed word and character n-grams, so it needs no vocabulary file. A
statement is scored with the vectorizers' own analyzers and hash (murmurhash3, as HashingVectorizer hashes),
without building scikit-learn's sparse matrices: for one short text those cost about 100 µs of the 180 a
score took (tests/test_learned_screen.py checks the two give the same score)."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.utils import murmurhash3_32

from agent_signals.core.memo import per_text

MODEL_FILE = Path(__file__).with_name("data") / "instruction_model.npz"
# the score from which a statement is held for review, chosen on development data (training/instruction_model.py
# prints the figures, each development file left out of training in turn): 0.8 holds 76% of their rules by
# itself, 1 of their 292 controls and 1 of 300 work facts written blind (0.7 held 84%, 1 and 1.3% when chosen,
# with six files); with the rules of signal_shape.py beside it, 0.8 and 0.7 held the same share of the rules
HOLD_FROM = 0.8
# from this score up to HOLD_FROM a statement may be a rule: it is held only when a message it cites speaks to
# the agent too (risk.py: two weak signs together), which holds 6% more of the left-out rules and none of
# their controls
UNSURE_FROM = 0.5
N_FEATURES = 2**18
# the two feature sets, each weighted by tf-idf (sublinear tf) and normalised on its own, as trained
ANALYZERS = (
    {"analyzer": "word", "ngram_range": (1, 2)},
    {"analyzer": "char_wb", "ngram_range": (3, 5)},
)
REASON = "reads as a rule for acting, not a fact about the user"


@dataclass(frozen=True)
class _Part:
    analyze: Callable[[str], list[str]]  # the vectorizer's analyzer: a text's n-grams
    idf: np.ndarray  # dense, N_FEATURES
    coef: np.ndarray  # dense, N_FEATURES

    def counts(self, statement: str) -> Counter[int]:
        """The statement's feature counts, as HashingVectorizer.transform (alternate_sign=False) makes them:
        each n-gram's signed murmurhash3 (seed 0) of its UTF-8, its absolute value modulo N_FEATURES."""
        counts: Counter[int] = Counter()
        for gram in self.analyze(statement):
            h = murmurhash3_32(gram, positive=False)
            counts[_LOWEST if h == -(2**31) else abs(h) % N_FEATURES] += 1
        return counts


_LOWEST = (2**31 - 1 - (N_FEATURES - 1)) % N_FEATURES  # scikit-learn's index for abs(-2**31), undefined in C


def vectorizers() -> list[HashingVectorizer]:
    """The hashing vectorizers of the model's feature sets (training and scoring use these)."""
    return [
        HashingVectorizer(n_features=N_FEATURES, alternate_sign=False, norm=None, **analyzer)
        for analyzer in ANALYZERS
    ]


@functools.cache
def _model() -> tuple[list[_Part], float]:
    try:
        saved = np.load(MODEL_FILE)
    except OSError as exc:
        raise RuntimeError(
            f"the instruction model {MODEL_FILE} cannot be read ({exc}); reinstall agent-signals, or rebuild it "
            "with `python training/instruction_model.py`"
        ) from exc
    parts = []
    for n, vectorizer in enumerate(vectorizers()):
        idf = np.full(N_FEATURES, float(saved[f"idf_default_{n}"]), dtype=np.float64)
        idf[saved[f"idf_index_{n}"]] = saved[f"idf_value_{n}"]
        coef = np.zeros(N_FEATURES, dtype=np.float64)
        coef[saved[f"coef_index_{n}"]] = saved[f"coef_value_{n}"]
        parts.append(_Part(vectorizer.build_analyzer(), idf, coef))
    return parts, float(saved["intercept"])


@per_text
def instruction_score(statement: str) -> float:
    """The model's probability that `statement` is a rule for acting rather than a fact about the user."""
    parts, total = _model()
    for part in parts:
        counts = part.counts(statement)
        if not counts:
            continue
        index = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        weights = (1.0 + np.log(tf)) * part.idf[index]
        norm = math.sqrt(float(weights @ weights)) or 1.0
        total += float(weights @ part.coef[index]) / norm
    return 1.0 / (1.0 + math.exp(-total))


def instruction_reason(statement: str) -> str | None:
    """Why the statement is held, when the model scores it from HOLD_FROM."""
    score = instruction_score(statement)
    if score >= HOLD_FROM:
        return f"{REASON} (learned screen, {score:.2f})"
    return None


def unsure(statement: str) -> float | None:
    """The score of a statement that may be a rule but is not held for it alone (UNSURE_FROM to HOLD_FROM)."""
    score = instruction_score(statement)
    return score if UNSURE_FROM <= score < HOLD_FROM else None


def warm() -> None:
    """Load the model and the vectorizers' code before the first statement (a run's worker preload)."""
    instruction_score("Prefers bullet lists")
