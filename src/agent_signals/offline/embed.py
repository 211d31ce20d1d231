"""The offline embedding: a deterministic feature-hashing embedding of words and character trigrams,
L2-normalised. No download, no model file; good enough to find near-duplicate phrasings of one fact."""

from __future__ import annotations

import hashlib
import math

from agent_signals.offline.words import content_words


def _features(text: str) -> dict[str, float]:
    words = content_words(text)
    features: dict[str, float] = {}
    for word in words:
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
