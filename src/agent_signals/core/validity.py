"""Which periods a user's time phrase can name, so that a model's validity date is checked against the
user's own words. The extraction model answers, for a fact, optional bounds such as
`"until": {"quote": "until March", "date": "2027-03-01"}`; the quote is an exact substring of the message
(checked elsewhere), the date is the model's reading of it. The model is untrusted (hostile text can fool
it), so its date is kept only when it falls in a period the quoted words can name, read relative to the
message's own time: `supports(phrase, said_at, day)`. A model can then choose which of the user's words to
quote, but cannot invent a date those words don't name.

- `spans(phrase, said_at)`: every period the phrase can name, each whole at the precision the phrase gives
  (day, week, month, quarter, year): "until March" said on 2026-11-10 names March 2026 and March 2027;
  "Friday" the last, the same-day and the next Friday; "last year" all of 2025. A phrase with no time in
  it names nothing ([]).
- `supports(phrase, said_at, day)`: whether `day` falls in one of those periods.
- `day_start(day)`: UTC midnight of a day, what gets stored for a bound.

How: `dateparser` (search_dates, which reports each expression's period) searches inside the phrase, so
leading words in any of the languages ("until", "bis", "jusqu'en", "desde") do not stop it, once for each
of its three readings of an incomplete date (past, current period, future). Its "ngram" strategy goes
first (it parses the longest runs of words as dates, which reads "el año pasado" and "la semaine
prochaine"); when it finds nothing, the "split" strategy (which finds expressions inside unspaced text, as
in "从去年开始"). Relative phrases ("two years ago", "next month") resolve against `said_at` converted to
UTC, never against today, so the same message gives the same periods whenever and wherever it is checked.
dateparser is restricted to the project's languages (LANGUAGES, those of instruction_phrases/): it
detects nothing else, which keeps it deterministic and quick.

Readings that start before 1900 or more than 100 years after the message are dropped (a PIN or a room
number is not a validity date). A phrase over PHRASE_MAX_CHARS names nothing here: a time phrase is a few
words, and dateparser's cost grows faster than the text (~0.1-0.2 s at 100 characters).

Cost (measured on this project's 2-core machine, dateparser 1.5.0): importing this module imports nothing
of dateparser (~20 ms); the first call imports it and loads the nine languages' data (~0.3-0.35 s in
all); later calls take ~7 ms for a short phrase (median; ~15 ms at most), two to four searches.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Any

# The languages the project reads (core/screening/instruction_phrases/<language>.toml; a test keeps them equal).
LANGUAGES = ("de", "en", "es", "fr", "it", "ja", "pt", "ru", "zh")
# dateparser's readings of an incomplete date ("March", "Friday"): the last one, the current one, the next.
_PREFERENCES = ("past", "current_period", "future")
_STRATEGIES = ("ngram", "split")  # the second only when the first finds nothing
PHRASE_MAX_CHARS = 100  # a longer quote names no period here (a time phrase is a few words)
MIN_YEAR = 1900  # a reading that starts earlier is dropped
MAX_YEARS_AHEAD = 100  # a reading that starts more than this many years after the message is dropped


@dataclass(frozen=True, order=True)
class Span:
    """A half-open period [start, end) in UTC (timezone-aware), e.g. March 2027 is
    [2027-03-01T00:00Z, 2027-04-01T00:00Z)."""

    start: datetime
    end: datetime

    def __contains__(self, moment: object) -> bool:
        return isinstance(moment, datetime) and self.start <= moment < self.end


@cache
def _search_dates() -> Callable[..., Any]:
    """dateparser's search_dates, imported on first use: importing dateparser takes ~0.2 s, and this module
    is imported by code that may never check a bound. dateparser keeps its searcher and the languages'
    data at its own module level, so later calls reuse them."""
    from dateparser.search import search_dates

    return search_dates


def spans(phrase: str, said_at: datetime) -> list[Span]:
    """The periods `phrase` can name when said at `said_at` (timezone-aware), in order, without
    duplicates; [] when it names no time."""
    if said_at.tzinfo is None or said_at.utcoffset() is None:
        raise ValueError(f"said_at must be timezone-aware, got {said_at.isoformat()}")
    if not phrase.strip() or len(phrase) > PHRASE_MAX_CHARS:
        return []
    base = said_at.astimezone(UTC).replace(tzinfo=None)
    latest = _years_after(base.date(), MAX_YEARS_AHEAD)
    found = {
        _span(moment.replace(tzinfo=None).date(), period, latest)
        for moment, period in _readings(phrase, base)
    }
    return sorted(span for span in found if span is not None)


def _readings(phrase: str, base: datetime) -> list[tuple[datetime, str]]:
    """(datetime, period) of each expression dateparser finds in `phrase`, in each of its readings of an
    incomplete date, relative to `base` (naive UTC). The strategy that finds something in the first
    reading serves the others: a preference changes how a date resolves, not whether one is found."""
    for strategy in _STRATEGIES:
        found = _search(phrase, base, _PREFERENCES[0], strategy)
        if found:
            for preference in _PREFERENCES[1:]:
                found += _search(phrase, base, preference, strategy)
            return [(moment, period) for text, moment, period in found if _names_time(text)]
    return []


_LETTER_OR_DIGIT = re.compile(r"\w")
NAME_MIN_CHARS = 3  # "so" (German Sonntag), "sa", "mo", "di": a word this short names a day only by chance


def _names_time(expression: str) -> bool:
    """Whether an expression dateparser found can stand for a time a user named: a year, or at least
    NAME_MIN_CHARS letters and digits ("May", "2020", "May 3", "3月" pass; "so" in "so I left", read as
    Sunday, and the "2" of "I have 2 cats", read as February, do not)."""
    if expression.strip().isdigit():
        return len(expression.strip()) == 4  # a bare number names a time only as a year
    chars = _LETTER_OR_DIGIT.findall(expression)
    return len(chars) >= NAME_MIN_CHARS or not expression.isascii()


def _search(phrase: str, base: datetime, preference: str, strategy: str) -> list[tuple[str, datetime, str]]:
    """dateparser's (expression, datetime, period) found in `phrase`, relative to `base`."""
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": preference}
    found = _search_dates()(
        phrase, languages=list(LANGUAGES), settings=settings, add_period=True, strategy=strategy
    )
    return list(found or [])


def supports(phrase: str, said_at: datetime, day: date) -> bool:
    """Whether `day` (a model's reading of `phrase`) falls in one of the periods the phrase can name."""
    start = day_start(day)
    return any(start in span for span in spans(phrase, said_at))


def day_start(day: date) -> datetime:
    """UTC midnight of `day`: what a validity bound stores."""
    if isinstance(day, datetime):
        raise TypeError(f"day must be a date, not a datetime ({day.isoformat()})")
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _span(day: date, period: str, latest: date) -> Span | None:
    """The whole period of `period`'s kind that holds `day` (the calendar day dateparser read, on its own
    clock when the phrase names a time zone); None when it starts before MIN_YEAR or after `latest`. A
    time of day ("until 3pm", "tonight") names its day; a period dateparser might add later counts as a
    day, the narrowest reading."""
    if period == "week":
        first = day - timedelta(days=day.weekday())  # weeks start on Monday, as dateparser's do
    elif period == "month":
        first = day.replace(day=1)
    elif period == "quarter":
        first = date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    elif period == "year":
        first = date(day.year, 1, 1)
    else:
        first = day
    if first.year < MIN_YEAR or first > latest:
        return None
    if period == "week":
        after = first + timedelta(days=7)
    elif period in ("month", "quarter"):
        months = first.month - 1 + (3 if period == "quarter" else 1)
        after = date(first.year + months // 12, months % 12 + 1, 1)
    elif period == "year":
        after = date(first.year + 1, 1, 1)
    else:
        after = first + timedelta(days=1)
    return Span(day_start(first), day_start(after))


def _years_after(day: date, years: int) -> date:
    """`day` moved `years` years on (29 February becomes 28 February in a common year), at most the last
    day whose following year `date` can still hold."""
    if day.year + years >= date.max.year:
        return date(date.max.year - 1, 12, 31)
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)
