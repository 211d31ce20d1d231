"""The periods a user's time phrase names (core/validity.py), which decide whether a model's validity date
("until": {"quote": "until March", "date": "2027-03-01"}) is a reading of the user's words: English,
German, French and Spanish phrases, both readings of an incomplete date, phrases with no time, absurd
years, a fooled model's dates, time zones, and the same answer every time."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from agent_signals.core import validity
from agent_signals.core.validity import PHRASE_MAX_CHARS, Span, day_start, spans, supports

pytestmark = pytest.mark.unit

SAID = datetime(2026, 11, 10, 15, 0, tzinfo=UTC)  # a Tuesday
FRIDAY = datetime(2026, 11, 13, 9, 0, tzinfo=UTC)


def periods(phrase: str, said_at: datetime = SAID) -> list[tuple[str, str]]:
    """spans() as (first day, day after) in ISO form, to compare at a glance."""
    return [(s.start.date().isoformat(), s.end.date().isoformat()) for s in spans(phrase, said_at)]


MARCH_BOTH = [("2026-03-01", "2026-04-01"), ("2027-03-01", "2027-04-01")]
LAST_YEAR = [("2025-01-01", "2026-01-01")]
NEXT_WEEK = [("2026-11-16", "2026-11-23")]  # Monday to Monday


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("until March", MARCH_BOTH),
        ("since 2019", [("2019-01-01", "2020-01-01")]),
        ("last year", LAST_YEAR),
        ("next month", [("2026-12-01", "2027-01-01")]),
        ("two years ago", [("2024-01-01", "2025-01-01")]),
        ("for two years", [("2024-01-01", "2025-01-01"), ("2028-01-01", "2029-01-01")]),
        ("until Friday", [("2026-11-06", "2026-11-07"), ("2026-11-13", "2026-11-14")]),
        ("in January", [("2026-01-01", "2026-02-01"), ("2027-01-01", "2027-02-01")]),
        ("till next week", NEXT_WEEK),
        ("until tomorrow", [("2026-11-11", "2026-11-12")]),
        ("no longer, as of June", [("2026-06-01", "2026-07-01"), ("2027-06-01", "2027-07-01")]),
        ("until 2027-Q1", [("2027-01-01", "2027-04-01")]),
        ("until 2027-03-01", [("2027-03-01", "2027-03-02")]),
        ("since last summer", []),  # dateparser 1.5 reads no seasons
    ],
)
def test_english_phrases(phrase: str, expected: list[tuple[str, str]]) -> None:
    assert periods(phrase) == expected


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("bis März", MARCH_BOTH),
        ("seit 2019", [("2019-01-01", "2020-01-01")]),
        ("seit letztes Jahr", LAST_YEAR),
        ("seit letztem Jahr", []),  # dateparser 1.5 misses the dative ("letztem")
        ("ab nächste Woche", NEXT_WEEK),
        ("jusqu'en mars", MARCH_BOTH),
        ("depuis l'année dernière", LAST_YEAR),
        ("à partir de la semaine prochaine", NEXT_WEEK),
        ("hasta marzo", MARCH_BOTH),
        ("desde el año pasado", LAST_YEAR),
        ("desde 2019", [("2019-01-01", "2020-01-01")]),
    ],
)
def test_german_french_spanish_phrases(phrase: str, expected: list[tuple[str, str]]) -> None:
    assert periods(phrase) == expected


def test_text_without_spaces_is_searched_too() -> None:
    # no run of words to parse: the "split" strategy finds the expression inside ("from last year on")
    assert periods("从去年开始") == LAST_YEAR


def test_an_incomplete_date_has_its_past_and_future_readings() -> None:
    assert periods("until March") == MARCH_BOTH  # said in November: the last March and the next
    # said on a Friday: last week's, today's and next week's
    assert periods("Friday", FRIDAY) == [
        ("2026-11-06", "2026-11-07"),
        ("2026-11-13", "2026-11-14"),
        ("2026-11-20", "2026-11-21"),
    ]
    # several expressions: each of them, in each reading
    assert periods("from March to June") == [
        ("2026-03-01", "2026-04-01"),
        ("2026-06-01", "2026-07-01"),
        ("2027-03-01", "2027-04-01"),
        ("2027-06-01", "2027-07-01"),
    ]


def test_relative_phrases_resolve_against_the_message_not_today() -> None:
    said = datetime(2010, 6, 1, tzinfo=UTC)
    assert periods("last year", said) == [("2009-01-01", "2010-01-01")]
    assert periods("next month", said) == [("2010-07-01", "2010-08-01")]
    assert periods("until March", said) == [("2010-03-01", "2010-04-01"), ("2011-03-01", "2011-04-01")]


@pytest.mark.parametrize(
    "phrase", ["I love tea", "no longer", "", "   ", "for a while", "until further notice"]
)
def test_a_phrase_without_a_time_names_nothing(phrase: str) -> None:
    assert spans(phrase, SAID) == []
    assert not supports(phrase, SAID, date(2026, 11, 10))


@pytest.mark.parametrize(
    "phrase", ["until 1850", "since 1234", "until the year 1899", "until 2127", "until 9999"]
)
def test_absurd_years_are_refused(phrase: str) -> None:
    assert spans(phrase, SAID) == []


def test_the_year_limits_are_inclusive() -> None:
    assert periods("since 1900") == [("1900-01-01", "1901-01-01")]
    # 2126 starts within 100 years of the message (2026-11-10 -> 2126-11-10)
    assert periods("until 2126") == [("2126-01-01", "2127-01-01")]


@pytest.mark.parametrize(
    ("phrase", "day", "expected"),
    [
        ("until March", date(2027, 3, 1), True),
        ("until March", date(2026, 3, 31), True),
        ("until March", date(1999, 3, 1), False),  # a fooled model's March
        ("until March", date(2030, 3, 1), False),
        ("until March", date(2027, 4, 1), False),  # the day after the period: [start, end)
        ("until March", date(2027, 2, 28), False),
        ("last year", date(2025, 12, 31), True),
        ("last year", date(2026, 1, 1), False),
        ("until Friday", date(2026, 11, 13), True),
        ("until Friday", date(2026, 11, 12), False),
        ("I love tea", date(2027, 3, 1), False),
        ("bis März", date(2027, 3, 1), True),
        ("bis März", date(2028, 3, 1), False),
    ],
)
def test_supports_keeps_only_a_day_the_phrase_names(phrase: str, day: date, expected: bool) -> None:
    assert supports(phrase, SAID, day) is expected


def test_periods_are_utc_whatever_the_time_zone_of_the_message() -> None:
    tokyo = SAID.astimezone(timezone(timedelta(hours=9)))
    new_york = SAID.astimezone(timezone(timedelta(hours=-5)))
    for phrase in ("until March", "last year", "until Friday", "next week"):
        readings = spans(phrase, SAID)
        assert readings and spans(phrase, tokyo) == readings == spans(phrase, new_york)
        for span in readings:
            assert span.start.utcoffset() == span.end.utcoffset() == timedelta(0)
            assert span.start.time() == span.end.time() == datetime.min.time()
    # the message's day is its UTC day: 23:30 in New York is already the next day in UTC
    late = datetime(2026, 11, 10, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert periods("until tomorrow", late) == [("2026-11-12", "2026-11-13")]


def test_same_input_same_output() -> None:
    for phrase in ("until March", "desde el año pasado", "从去年开始", "I love tea"):
        assert spans(phrase, SAID) == spans(phrase, SAID)
    assert spans("until Friday", FRIDAY) == spans("until Friday", FRIDAY)


def test_a_phrase_over_the_limit_names_nothing() -> None:
    fits = "until March".rjust(PHRASE_MAX_CHARS, "x")
    assert periods(fits) == MARCH_BOTH
    assert spans("x" + fits, SAID) == []


def test_day_start_is_utc_midnight() -> None:
    assert day_start(date(2027, 3, 1)) == datetime(2027, 3, 1, tzinfo=UTC)
    assert day_start(date(2027, 3, 1)) in Span(
        datetime(2027, 3, 1, tzinfo=UTC), datetime(2027, 4, 1, tzinfo=UTC)
    )


def test_bad_input_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ValueError, match="said_at must be timezone-aware"):
        spans("until March", datetime(2026, 11, 10))
    with pytest.raises(TypeError, match="day must be a date, not a datetime"):
        day_start(datetime(2027, 3, 1, tzinfo=UTC))


def test_languages_are_those_of_the_instruction_phrases() -> None:
    folder = Path(validity.__file__).parent / "screening" / "instruction_phrases"
    assert sorted(validity.LANGUAGES) == sorted(p.stem for p in folder.glob("*.toml"))


def test_importing_the_module_does_not_import_dateparser() -> None:
    code = "import sys, agent_signals.core.validity; print('dateparser' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("phrase", ["so", "so I left", "I have 2 cats", "sa"])
def test_a_short_word_or_a_small_number_names_no_time(phrase: str) -> None:
    """dateparser reads "so" as Sunday (German "So") and a lone "2" as February: not a time the user named."""
    assert spans(phrase, SAID) == []


@pytest.mark.parametrize("phrase", ["until May", "since 2019", "until March 3", "3月"])
def test_a_month_a_year_or_a_date_still_names_its_time(phrase: str) -> None:
    assert spans(phrase, SAID) != []
