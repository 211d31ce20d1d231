"""The summary written from a user's signals without a model (core/prompting/summary_text.py): the summary stage's
fallback and the offline model's answer to prompts/summarize/v1."""

from __future__ import annotations

import pytest

from agent_signals.core.prompting.prompts import SummaryLine
from agent_signals.core.prompting.summary_text import summary_from_signals
from agent_signals.limits import SUMMARY_MAX_WORDS

pytestmark = pytest.mark.unit


def test_identity_first_then_what_is_recent():
    lines = [
        SummaryLine("contextual", "personal", "Moved to Lisbon"),
        SummaryLine("manual", "communication", "Prefers short answers"),
        SummaryLine("core", "role", "Works as a data engineer"),
        SummaryLine("core", "expertise", "SQL tuning is their speciality."),
    ]
    assert summary_from_signals(lines) == (
        "The user prefers short answers, works as a data engineer and SQL tuning is their speciality. "
        "Lately, the user also moved to Lisbon."
    )


def test_no_signal_and_the_word_budget():
    assert summary_from_signals([]) == "Nothing is known about the user yet."
    many = [SummaryLine("core", "personal", f"Has hobby number {i}") for i in range(100)]
    assert len(summary_from_signals(many).split()) <= SUMMARY_MAX_WORDS
