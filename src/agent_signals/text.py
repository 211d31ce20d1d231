"""Text normalisation shared by every reader of a message and by validation and apply: the text a message
is read as (clean), and what counts as "the same" signal or quote."""

from __future__ import annotations

import re
import unicodedata

# Invisible characters: Unicode's Default_Ignorable_Code_Point set (zero-width space, ZWNJ, ZWJ, soft hyphen,
# word joiner, BOM, the bidi controls LRM/RLM/ALM, LRE..RLO and LRI..PDI, variation selectors, Hangul fillers,
# tag characters U+E0000-E007F and the rest of U+E0000-E0FFF) and every other format character (category Cf).
# Written in the regex syntax both Python's re and PostgreSQL's regular expressions read: the SQL twin,
# signals.clean_text in sql/migrations/m012_normalised_text.sql, holds this very literal (tests/test_text.py).
HIDDEN_CHARACTERS = (
    r"[\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5"
    r"\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB"
    r"\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A"
    r"\U000E0000-\U000E0FFF]"
)
_HIDDEN = re.compile(HIDDEN_CHARACTERS)
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_EDGE_PUNCT = " .,;:!?'\"()[]"


def clean(text: str) -> str:
    """The text every reader of a message sees (the prompt, the screens, quote validation, the stored
    evidence): invisible characters removed, then Unicode NFKC. Idempotent; signals.clean_text in SQL."""
    return unicodedata.normalize("NFKC", _HIDDEN.sub("", text))


def hidden_characters(text: str) -> int:
    """How many invisible characters clean() removes from text (0: nothing was hidden in it)."""
    return sum(1 for _ in _HIDDEN.finditer(text))


# Characters that make text read differently from how it is stored: bidi embeddings and overrides (a
# run shown reversed) and Unicode tag characters (invisible ASCII), outside the flag emoji they spell.
_DISGUISE = re.compile("[\u202a-\u202e\U000e0000-\U000e007f]")
_TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def disguises_text(text: str) -> bool:
    """Whether a text hides what it says from its reader (bidi overrides, tag characters): a person
    typing a message does not produce them, so a message that has them is hostile, whatever they hide."""
    return bool(_DISGUISE.search(_TAG_FLAG.sub("", text)))


def squash(text: str) -> str:
    """Lower-cased, cleaned (invisible characters removed, NFKC), straight quotes, control characters as
    spaces, whitespace collapsed."""
    text = clean(text).translate(_QUOTES)
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
