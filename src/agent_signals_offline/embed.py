"""The offline embedding: a deterministic feature-hashing embedding of words and character trigrams,
L2-normalised. No download, no model file; good enough to find near-duplicate phrasings of one fact.

Words are Unicode words in any script (runs of letters, digits and combining marks), so Cyrillic, Greek,
Arabic or Devanagari words count like English ones; a script written without spaces (Chinese, Japanese,
Thai) gives one run per clause, whose character trigrams carry its meaning. English text (letters and
digits a-z0-9) gets exactly the features it always had."""

from __future__ import annotations

import hashlib
import math
import unicodedata

from agent_signals.core.text import clean
from agent_signals_offline.words import STOP_WORDS


def _is_word_character(character: str) -> bool:
    return character.isalnum() or unicodedata.category(character)[0] == "M"


def unicode_words(text: str) -> list[str]:
    """The lower-cased words of a cleaned text (text.clean), English stop words left out; a text with no
    letter or digit at all (emoji, symbols) is read as its whitespace-separated pieces."""
    text = clean(text).lower()
    words: list[str] = []
    start = None
    for i, character in enumerate(text):
        if _is_word_character(character):
            if start is None:
                start = i
        elif start is not None:
            words.append(text[start:i])
            start = None
    if start is not None:
        words.append(text[start:])
    if not words:
        return text.split()
    return [w for w in words if w not in STOP_WORDS]


def _features(text: str) -> dict[str, float]:
    features: dict[str, float] = {}
    for word in unicode_words(text):
        features[f"w:{word}"] = features.get(f"w:{word}", 0.0) + 1.0
        padded = f"^{word}$"
        for i in range(len(padded) - 2):
            key = f"t:{padded[i : i + 3]}"
            features[key] = features.get(key, 0.0) + 0.5
    return features


def embed(text: str, dim: int) -> list[float]:
    vector = [0.0] * dim
    for feature, weight in _features(text).items():
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += weight if digest[4] & 1 else -weight
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        vector[0] = 1.0  # an empty text still gets a valid unit vector
        return vector
    return [v / norm for v in vector]
