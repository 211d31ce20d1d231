"""Text normalisation shared by every reader of a message and by validation and apply: the text a message
is read as (clean), and what counts as "the same" signal or quote."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from agent_signals.core.memo import per_text
from agent_signals.core.screening.characters import HIDDEN, disguises
from agent_signals.core.screening.characters import (
    HIDDEN_CHARACTERS as HIDDEN_CHARACTERS,  # the SQL twin's literal
)

# What is hidden (stripped before storing) and what disguises a text: characters.py, which screening reads
# too. HIDDEN_CHARACTERS is the literal that signals.clean_text in SQL holds (tests/test_text.py).
_HIDDEN = HIDDEN
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


def disguises_text(text: str) -> bool:
    """Whether a text hides what it says from its reader (bidi overrides, tag characters): a person
    typing a message does not produce them, so a message that has them is hostile, whatever they hide.
    Screening reads what they hide (fold.py's `hidden` reading): characters.py defines both."""
    return disguises(text)


def squash(text: str) -> str:
    """Lower-cased, cleaned (invisible characters removed, NFKC), straight quotes, control characters as
    spaces, whitespace collapsed."""
    text = clean(text).translate(_QUOTES)
    return _SPACE.sub(" ", _CONTROL.sub(" ", text)).strip().lower()


def normalize_content(content: str) -> str:
    """The key of a signal's text: two contents with the same key are the same signal."""
    return squash(content).strip(_EDGE_PUNCT)


# Quote marks and apostrophes a model may write for one another (straight, curly, low-9, reversed, primes,
# modifier letters, accents used as apostrophes, guillemets, full-width): all read as one mark in a quote.
_QUOTE_MARKS = "'\"`\u00b4\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u2035\u2036\u02b9\u02ba\u02bb\u02bc\u02bd\u02c8\u00ab\u00bb\u2039\u203a\uff02\uff07"
_FOLD_MARKS = str.maketrans(dict.fromkeys(_QUOTE_MARKS, "'"))
# An ellipsis a model writes where it cut a quote: "...", "…", ". . .", optionally in brackets.
_ELLIPSIS = r"(?:\[\s*(?:\.\s*){3,}\]|\(\s*(?:\.\s*){3,}\)|\[…\]|\(…\)|(?:\.\s*){2,}\.|…)"
_CUT = re.compile(rf"\s*{_ELLIPSIS}\s*")
_EDGE_CUT = re.compile(rf"^\s*{_ELLIPSIS}|{_ELLIPSIS}\s*$")
ELIDED_GAP_CHARS = 80  # at most this many characters of the message may stand behind an inner ellipsis
_ACUTE = "\u0301"  # NFKC makes a space and this of "\u00b4", an acute accent models write as an apostrophe
_LOOSE_EDGE = "'.,;:!?"  # marks at a quote's ends that the message may not have ("I'm a pilot." / 'pilot')


@lru_cache(maxsize=4096)  # the characters a process has met
def _fold(char: str) -> str:
    """What one character of a message or quote reads as when quotes are compared: invisible characters
    nothing, control characters a space, compatibility-decomposed (NFKD), case-folded, every quote mark
    one. Per character, so each folded character knows the character of the text it came from."""
    if _HIDDEN.match(char):
        return ""
    if _CONTROL.match(char):
        return " "
    if char in _QUOTE_MARKS:  # before NFKD, which makes two primes of a double prime
        return "'"
    return unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", char).casefold()).translate(
        _FOLD_MARKS
    )


# the messages of the users in progress, each cited by a few quotes (an index per character: not memo.TEXTS)
@lru_cache(maxsize=256)
def _folded(text: str) -> tuple[str, tuple[int, ...]]:
    """The folded text and, for each of its characters, the index of the character of `text` it came from."""
    parts, origin = [], []
    for index, char in enumerate(text):
        if char == " " and text[index + 1 : index + 2] == _ACUTE:  # NFKC's form of an acute accent: a mark
            folded = ""
        elif char == _ACUTE and text[index - 1 : index] == " ":
            folded = "'"
        else:
            folded = _fold(char)
        parts.append(folded)
        origin.extend([index] * len(folded))
    return "".join(parts), tuple(origin)


def _words_pattern(part: str) -> str:
    """A regex for one run of quoted words, folded, whitespace runs as any whitespace."""
    folded = _folded(part)[0]
    return r"\s+".join(re.escape(w) for w in folded.split())


@per_text
def _quote_pattern(quote: str) -> tuple[re.Pattern[str] | None, bool]:
    """The regex a quote's span must match in the folded message (None when the quote has no words), and
    whether the quote elides a middle part.
    Quote marks and sentence punctuation at the quote's ends are optional (kept in the span when the
    message has them there), an ellipsis at either end is dropped, one inside is a short gap."""
    stripped = quote.strip()
    quote = _EDGE_CUT.sub("", stripped).strip()
    dots = r"(?:\.\.\.)?"  # a cut the model marked may be the message's own ellipsis ("…" folds to "...")
    cut_before, cut_after = (
        (dots if stripped[:1] != quote[:1] else ""),
        (dots if stripped[-1:] != quote[-1:] else ""),
    )
    core = quote.strip(_QUOTE_MARKS + _LOOSE_EDGE + " ")
    if not core:
        return None, False
    lead, trail = quote[: quote.index(core)], quote[quote.index(core) + len(core) :]
    parts = [_words_pattern(p) for p in _CUT.split(core)]
    if not all(parts):
        return None, False
    optional = lambda marks: "".join(f"(?:{re.escape(_fold(c))})?" for c in marks if not c.isspace())  # noqa: E731
    gap = rf"[\s\S]{{0,{ELIDED_GAP_CHARS}}}?"
    pattern = re.compile(cut_before + optional(lead) + gap.join(parts) + optional(trail) + cut_after)
    return pattern, len(parts) > 1


def find_span(quote: str, text: str) -> str | None:
    """The exact span of text that the quote cites; None when the quote is not in the text. The quote
    matches up to case, runs of whitespace, invisible characters, compatibility forms (NFKD: "ﬁ" is "fi"),
    quote marks and apostrophes of any kind (' ’ ‘ ʼ ′ ` ´ " “ ” « » ...), quote marks or sentence
    punctuation at its ends that the text lacks, and an ellipsis ("..." or "…") at either end. An ellipsis
    inside the quote ("I lead ... payments team") stands for at most ELIDED_GAP_CHARS characters of the
    text, the parts in order: the span then runs from the first part to the last, what was elided
    included, so the stored evidence is still what the message says, never a stitched sentence. The span
    starts and ends on whole characters of the text and is stored as evidence: evidence is always a
    verbatim substring of its message."""
    pattern, elided = _quote_pattern(quote)
    if pattern is None:
        return None
    haystack, origin = _folded(text)
    best: tuple[int, int] | None = None
    position = 0
    while (match := pattern.search(haystack, position)) is not None:
        start, end = match.start(), match.end()
        whole = (start == 0 or origin[start - 1] != origin[start]) and (
            end == len(haystack)
            or (origin[end] != origin[end - 1] and not unicodedata.combining(haystack[end]))
        )
        if whole and not elided:
            return text[origin[start] : origin[end - 1] + 1]
        if whole and (best is None or end - start < best[1] - best[0]):  # elided: the shortest span
            best = (start, end)
        position = start + 1
    return None if best is None else text[origin[best[0]] : origin[best[1] - 1] + 1]


_WORD = re.compile(r"\w+")
_STEM = 5  # words sharing their first five letters are one word here ("manages", "managing")
# words too common to say what a text is about (English: the language signals are written in)
_COMMON = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "been",
        "were",
        "they",
        "them",
        "what",
        "when",
        "your",
        "about",
        "would",
        "their",
        "there",
        "which",
        "will",
        "into",
        "just",
        "like",
        "more",
        "some",
        "than",
        "then",
        "also",
        "only",
        "over",
        "very",
        "still",
        "used",
        "does",
        "doing",
    ]
)


def speaks_of(quote: str, content: str) -> bool:
    """Whether a quote speaks of what a signal says: a word of four letters or more in common, up to case,
    compatibility forms and endings ("I no longer manage the data team" / "Manages the data team"); for
    texts written without spaces (Chinese, Japanese), two characters in a row in common. A quote that says
    nothing of the fact ("none of that is true any more") does not."""

    said, signal = (_WORD.findall(unicodedata.normalize("NFKC", t).casefold()) for t in (quote, content))

    def stems(words: list[str]) -> set[str]:
        return {w[:_STEM] for w in words if len(w) >= 4 and w not in _COMMON and not w.isdigit()}

    def pairs(words: list[str]) -> set[str]:
        letters = "".join(words)
        return {letters[i : i + 2] for i in range(len(letters) - 1) if not letters[i : i + 2].isascii()}

    return bool(stems(said) & stems(signal)) or bool(pairs(said) & pairs(signal))
