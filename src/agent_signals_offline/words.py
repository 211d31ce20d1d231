"""Word splitting shared by the offline models: what counts as a word, and words too common to mean much."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+")
STOP_WORDS = frozenset(
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
        "is",
        "are",
        "be",
        "as",
        "i",
        "me",
        "my",
        "their",
        "they",
        "them",
        "has",
        "likes",
    ]
)


def content_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP_WORDS]
