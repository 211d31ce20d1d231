"""Validation of an answer's validity (core/validate.py), whatever the model claims: a day is kept only when
its quote is the words of a cited message and those words name that day on the day they were said; an `end`
names one of the pipeline's signals and cites words that speak of it; the defaults when nothing is said."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from agent_signals.config import Settings
from agent_signals.core.outcome import validate_answer
from agent_signals.core.prompting.answers import parse_extract_actions
from agent_signals.core.prompting.extract_calls import Call, KnownSignal, SourceMessage

pytestmark = pytest.mark.unit

AT = datetime(2026, 11, 10, 15, 30, tzinfo=UTC)
CALL = Call(
    prompt=[],
    messages={
        "m1": SourceMessage.read("c1", "1", "I'm on parental leave until March.", AT),
        "m2": SourceMessage.read("c1", "2", "I was a teacher until 2020.", AT),
        "m3": SourceMessage.read("c1", "3", "I no longer manage the data team.", AT),
        "m4": SourceMessage.read("c1", "4", "None of that is true any more.", AT),
        "m5": SourceMessage.read("c1", "5", "I moved to Berlin last year, so I have 2 cats now.", AT),
    },
    signals={
        "s1": KnownSignal(
            uuid4(), "Manages the data team", "manages the data team", "core", "role", "inferred"
        ),
        "s2": KnownSignal(
            uuid4(), "Manages the data team", "manages the data team", "core", "role", "manual"
        ),
    },
)


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def judged(*actions: dict) -> tuple[list, list[str]]:
    validated = validate_answer(
        parse_extract_actions(json.dumps({"actions": list(actions)})), CALL, Settings()
    )
    return [(p.action, p.valid_from, p.valid_to) for p in validated.proposals], [
        r.reason for r in validated.rejected
    ]


def create(message: str, **bounds) -> dict:
    return {"action": "create", "content": "A fact", "tier": "contextual", "kind": "personal",
            "evidence": [{"message": message, "quote": CALL.messages[message].content}], **bounds}  # fmt: skip


def end(message: str, signal: str = "s1", **bounds) -> dict:
    return {"action": "end", "signal": signal,
            "evidence": [{"message": message, "quote": CALL.messages[message].content}], **bounds}  # fmt: skip


def test_a_fact_holds_from_the_day_it_was_said_unless_the_user_says_otherwise():
    assert judged(create("m1")) == ([("create", AT, None)], [])


def test_a_named_end_is_kept_at_the_start_of_the_day_the_model_reads():
    until = {"quote": "until March", "date": "2027-03-01"}
    assert judged(create("m1", until=until)) == ([("create", AT, day("2027-03-01"))], [])
    # either reading of the month, any day in it
    assert judged(create("m1", until={"quote": "March", "date": "2026-03-31"}))[0][0][2] == day("2026-03-31")


def test_a_past_fact_has_no_known_start():
    assert judged(create("m2", until={"quote": "until 2020", "date": "2020-01-01"})) == (
        [("create", None, day("2020-01-01"))],
        [],
    )


def test_a_named_start_is_kept():
    since = {"quote": "last year", "date": "2025-01-01"}
    assert judged(create("m5", since=since)) == ([("create", day("2025-01-01"), None)], [])


@pytest.mark.parametrize(
    "bound, reason",
    [
        ({"until": {"quote": "until March", "date": "1999-03-01"}}, "is not a time 'until March' names"),
        ({"until": {"quote": "until May", "date": "2027-05-01"}}, "quote: not in a cited message"),
        ({"until": {"quote": "2", "date": "2027-02-01"}}, "is not a time '2' names"),  # "2 cats"
        ({"until": {"quote": "so", "date": "2026-11-15"}}, "is not a time 'so' names"),  # German Sunday
        ({"until": {"quote": "until March", "date": "2027-02-30"}}, "is not a day"),
    ],
)
def test_a_fooled_models_day_is_refused(bound: dict, reason: str):
    message = "m5" if bound["until"]["quote"] in ("2", "so") else "m1"
    proposals, rejected = judged(create(message, **bound))
    assert proposals == [] and len(rejected) == 1 and reason in rejected[0]


def test_an_end_before_its_start_is_refused():
    bounds = {
        "since": {"quote": "last year", "date": "2025-06-01"},
        "until": {"quote": "last year", "date": "2025-01-01"},
    }
    _proposals, rejected = judged(create("m5", **bounds))
    assert "is before since" in rejected[0]


def test_an_end_closes_one_of_the_pipelines_signals_on_words_that_speak_of_it():
    assert judged(end("m3")) == ([("end", None, AT)], [])
    assert judged(end("m3", until={"quote": "until March", "date": "2027-03-01"}))[1] == [
        "actions.0.until.quote: not in a cited message"
    ]
    assert judged(end("m4")) == ([], ["actions.0.evidence: no quote speaks of s1 (no word of it)"])
    assert judged(end("m3", signal="s2")) == ([], ["actions.0.signal: s2 is the user's own signal"])
    assert judged(end("m3", signal="s9")) == ([], ["actions.0.signal: unknown handle 's9'"])


@pytest.mark.parametrize(
    "quote, content, expected",
    [
        ("I no longer manage the data team", "Manages the data team", True),
        ("None of that is true any more.", "Manages the data team", False),
        ("this is what they would have been", "Has been there with them", False),  # common words only
        ("我不再管理数据团队", "管理数据团队", True),  # no spaces: two characters in a row
        ("我很好", "管理数据团队", False),
    ],
)
def test_a_quote_speaks_of_a_fact_by_a_word_in_common(quote: str, content: str, expected: bool):
    from agent_signals.core.text import speaks_of

    assert speaks_of(quote, content) is expected
