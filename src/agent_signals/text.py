"""Text normalisation shared by validation and apply: what counts as "the same" signal or quote."""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_EDGE_PUNCT = " .,;:!?'\"()[]"


def squash(text: str) -> str:
    """Lower-cased, NFKC, straight quotes, control characters as spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return _SPACE.sub(" ", _CONTROL.sub(" ", text)).strip().lower()


def normalize_content(content: str) -> str:
    """The key of a signal's text: two contents with the same key are the same signal."""
    return squash(content).strip(_EDGE_PUNCT)


def find_span(quote: str, text: str) -> str | None:
    """The exact span of text that the quote cites, matching up to case, runs of whitespace and
    typographic quotes; None when the quote is not in the text. The span is stored as evidence, so
    evidence is always a verbatim substring of its message."""
    words = _CONTROL.sub(" ", quote.translate(_QUOTES)).split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    # translate() and the control-character substitution keep lengths, so offsets map back to `text`
    haystack = _CONTROL.sub(" ", text.translate(_QUOTES))
    match = re.search(pattern, haystack, re.IGNORECASE)
    return text[match.start() : match.end()] if match else None
