"""Dates of birth in any language: a full date (day, month and year, in figures or with a month's name
in any of the CLDR locales of the languages in cues.BIRTH_WORDS, through babel) whose year is more than
twelve years ago, near a word for being born or a birthday (cues.py, over thirty languages). Thai
dates may count years in the Buddhist era (543 years ahead); Korean, Chinese and Japanese write the
month as a number with a marker (3월, 3月), Vietnamese before it (tháng 3).
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterator
from functools import cache

import regex
from babel import Locale

from agent_signals.core.screening.sensitive.cues import BIRTH_WORDS, cue
from agent_signals.core.screening.sensitive.finding import Finding

_BIRTH_CUE = cue(BIRTH_WORDS)
_REACH = 60  # characters from the cue to the date, either side
_MIN_AGE = 13  # a year at most this many years ago is a date of something else
_BUDDHIST_ERA = 543
_CLAUSE_END = re.compile(r"[\n!?;。！？；]")
_NUMERIC = re.compile(
    r"(?<!\d)(?:(?P<a>\d{1,2})\s?(?P<s>[./-])\s?(?P<b>\d{1,2})\s?(?P=s)\s?(?P<y>\d{4})"
    r"|(?P<y2>\d{4})\s?(?P<t>[./-])\s?(?P<m2>\d{1,2})\s?(?P=t)\s?(?P<d2>\d{1,2}))(?!\d)"
)
_TOKEN = regex.compile(r"\d+|[\p{L}\p{M}]+")  # `re` splits words at combining marks (Thai, Hindi)


def find_birth_dates_any(text: str) -> Iterator[Finding]:
    for cue_match in _BIRTH_CUE.finditer(text):
        start, end = _window(text, cue_match.start(), cue_match.end())
        for span in _full_dates(text, start, end):
            yield Finding("date_of_birth", *span)


def _window(text: str, start: int, end: int) -> tuple[int, int]:
    lo, hi = max(0, start - _REACH), min(len(text), end + _REACH)
    before = [m.end() for m in _CLAUSE_END.finditer(text, lo, start)]
    after = _CLAUSE_END.search(text, end, hi)
    return (before[-1] if before else lo), (after.start() if after else hi)


def _full_dates(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    for match in _NUMERIC.finditer(text, start, end):
        if match["y"]:
            year, parts = int(match["y"]), sorted((int(match["a"]), int(match["b"])))
        else:
            year, parts = int(match["y2"]), sorted((int(match["m2"]), int(match["d2"])))
        if _birth_year(year) and 1 <= parts[0] <= 12 and 1 <= parts[1] <= 31:
            yield match.span()
    tokens = list(_TOKEN.finditer(text, start, end))
    for i, token in enumerate(tokens):
        if not (token[0].isdigit() and len(token[0]) == 4 and _birth_year(int(token[0]))):
            continue
        near = tokens[max(0, i - 5) : i] + tokens[i + 1 : i + 6]
        month = _month_at(near)
        days = [t for t in near if t[0].isdigit() and 1 <= int(t[0]) <= 31 and t is not month]
        if month is not None and days:
            spans = [token.span(), month.span(), *(d.span() for d in days[:1])]
            yield min(s for s, _ in spans), max(e for _, e in spans)


def _month_at(tokens: list[regex.Match[str]]) -> regex.Match[str] | None:
    """A month's name, or a month's number beside a month marker (3월, 3月, tháng 3)."""
    names, markers = _months()
    for i, token in enumerate(tokens):
        word = _fold(token[0])
        if word in names or (len(word) > 2 and word[1:] in names and word[0] in "בלה"):
            return token
        if word in markers:
            for j in (i - 1, i + 1):
                if 0 <= j < len(tokens) and tokens[j][0].isdigit() and 1 <= int(tokens[j][0]) <= 12:
                    return tokens[j]
    return None


def _birth_year(year: int) -> bool:
    latest = datetime.date.today().year - _MIN_AGE
    return 1900 <= year <= latest or 1900 + _BUDDHIST_ERA <= year <= latest + _BUDDHIST_ERA


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


@cache
def _months() -> tuple[frozenset[str], frozenset[str]]:
    """Month names (wide and abbreviated, in running text and alone) of every language with birth
    words, and the markers of months written as numbers ("월", "月", "tháng")."""
    names, markers = set(), {"月", "월", "thg", "thang"}
    for language in {key.split("-")[0] for key in BIRTH_WORDS} | {"ms", "fil", "he", "fa"}:
        try:
            months = Locale.parse(language).months
        except (ValueError, LookupError):
            continue
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for name in months[context][width].values():
                    words = _TOKEN.findall(_fold(name))
                    if any(w.isdigit() for w in words):
                        markers.update(w for w in words if not w.isdigit())
                    elif len(words) == 1:
                        names.add(words[0])
                    else:  # "de marzo": the month's own word
                        names.add(max(words, key=len))
    return frozenset(names), frozenset(markers)
