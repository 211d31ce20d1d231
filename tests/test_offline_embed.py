"""The offline embedding (offline/hash-256) of any script: Unicode words and their character trigrams, so
unrelated texts without Latin letters are not near-duplicates, and English reads as it always did."""

from __future__ import annotations

import math

import pytest

from agent_signals_offline.embed import embed, unicode_words
from agent_signals_offline.reconcile import MERGE_SIMILARITY

pytestmark = pytest.mark.unit


def cosine(a: str, b: str) -> float:
    return sum(x * y for x, y in zip(embed(a, 256), embed(b, 256), strict=True))


UNRELATED = [
    ("我住在上海", "我住在北京"),  # lives in Shanghai / Beijing
    (
        "喜欢简短的回答",
        "负责支付系统",
    ),  # likes short answers / owns the payments system
    ("是一名医生", "是一名律师"),  # is a doctor / is a lawyer
    (
        "Живёт в Москве",
        "Работает инженером данных",
    ),  # lives in Moscow / works as a data engineer
    (
        "東京に住んでいる",
        "データエンジニアとして働いている",
    ),  # lives in Tokyo / works as a data engineer
    ("\U0001f642\U0001f642", "\U0001f680"),  # no letters at all
]


@pytest.mark.parametrize(("a", "b"), UNRELATED, ids=lambda t: ascii(t)[:20])
def test_unrelated_texts_of_any_script_are_not_near_duplicates(a, b):
    threshold = min(
        MERGE_SIMILARITY, 0.9
    )  # the reconciler's merge and AGENT_SIGNALS_NEAR_DUPLICATE_SIMILARITY
    assert cosine(a, b) < threshold - 0.3
    assert cosine(a, a) == pytest.approx(1.0)


def test_words_are_unicode_words_with_their_marks():
    assert unicode_words("Works on the नमस्ते caf\u00e9 team") == [
        "works",
        "नमस्ते",
        "caf\u00e9",
        "team",
    ]
    assert unicode_words("Owns ad\u200bmin") == ["owns", "admin"]


# English features are exactly the old [a-z0-9] words and their trigrams: these figures are unchanged
@pytest.mark.parametrize(
    ("a", "b", "figure"),
    [
        ("Prefers answers without emojis", "Prefers answers without any emojis", 0.936),
        ("Prefers short answers", "Prefers short, direct answers", 0.882),
        ("Works as a data engineer", "Works as a data engineer on payments", 0.823),
        ("Lives in Porto", "Lives in Lisbon", 0.651),
    ],
)
def test_english_similarities_are_what_they_were(a, b, figure):
    assert math.isclose(cosine(a, b), figure, abs_tol=0.001)
