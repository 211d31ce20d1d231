"""A finding of secret, identifier or contact data in a text, and the edges its patterns share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


# Where a number or code starts and ends: not inside a Latin word or a longer number (a CJK character
# may touch it: "身份证号码是360426199101010071").
START = r"(?<![A-Za-z0-9-])"
END = r"(?![A-Za-z0-9-])"

LETTER = "A-Za-zÀ-ÖØ-öø-ɏА-яЁё"  # Latin and Cyrillic letters: the edges of a Latin or Cyrillic word
