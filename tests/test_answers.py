"""Strict parsing of the model's answer: "the answer is invalid" is never mistaken for "found nothing"."""

from __future__ import annotations

import json

import pytest

from agent_signals.core.prompting.answers import Create, InvalidAnswer, Skip, parse_extract_answer
from agent_signals.core.text import find_span, normalize_content

pytestmark = pytest.mark.unit

CREATE = {
    "action": "create",
    "content": "Is a pilot",
    "tier": "core",
    "kind": "role",
    "evidence": [{"message": "m1", "quote": "I'm a pilot"}],
}


def test_a_valid_answer_parses():
    answer = parse_extract_answer(json.dumps({"actions": [CREATE, {"action": "skip", "reason": "none"}]}))
    assert isinstance(answer.actions[0], Create) and isinstance(answer.actions[1], Skip)


def test_no_actions_is_a_valid_empty_answer():
    assert parse_extract_answer('{"actions": []}').actions == []


def test_a_markdown_code_fence_around_exact_json_is_accepted():
    assert parse_extract_answer('```json\n{"actions": []}\n```').actions == []


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("", "empty answer"),
        ("   ", "empty answer"),
        (None, "empty answer"),
        ("no signals here", "not JSON"),
        ('{"actions": [', "not JSON"),
        ("[]", "wrong schema"),
        ('{"signals": []}', "wrong schema"),
        (json.dumps({"actions": [{**CREATE, "tier": "gold"}]}), "wrong schema at actions.0.create.tier"),
        (json.dumps({"actions": [{**CREATE, "evidence": []}]}), "wrong schema"),
        (json.dumps({"actions": [{**CREATE, "content": "x" * 301}]}), "wrong schema"),
        (json.dumps({"actions": [{**CREATE, "score": 1}]}), "wrong schema"),
        (
            json.dumps({"actions": [{**CREATE, "evidence": [{"message": "msg1", "quote": "x"}]}]}),
            "wrong schema",
        ),
        (json.dumps({"actions": [{**CREATE, "mention_count": "3"}]}), "wrong schema"),
        (json.dumps({"actions": [CREATE] * 51}), "wrong schema"),
    ],
)
def test_invalid_answers_are_rejected_with_a_reason(raw, reason):
    with pytest.raises(InvalidAnswer) as error:
        parse_extract_answer(raw)
    assert error.value.reason.startswith(reason)
    assert error.value.raw == (raw or "")


def test_quotes_match_up_to_case_whitespace_and_typographic_quotes_and_keep_the_original_span():
    assert find_span("i\u2019M A  pilot", "Well, I'm a\npilot now") == "I'm a\npilot"
    assert find_span("I am a pilot", "I'm a pilot") is None
    assert find_span("   ", "anything") is None


def test_normalized_content_ignores_case_spacing_and_edge_punctuation():
    assert normalize_content("  Is a  Staff Engineer. ") == normalize_content("is a staff engineer")
    assert normalize_content("Is a staff engineer") != normalize_content("Is a staff designer")
