"""Decay, summaries and the quality gates, through the real flow (real PostgreSQL, dbt and GX)."""

from __future__ import annotations

import asyncio
import json
import math
from datetime import UTC, datetime, timedelta

import pytest

from agent_signals import user_paths
from agent_signals.offline.provider import answer as offline_answer
from agent_signals.prompts import is_summarize_prompt
from flows.extract import extract_signals
from tests.builders import T0, conversation, load_conversations

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]


@pytest.fixture(autouse=True)
def with_summaries(scripted, monkeypatch):
    """After `scripted`, which turns summaries off for the other test modules."""
    monkeypatch.setenv("AGENT_SIGNALS_SUMMARIES", "true")


def run() -> dict:
    return asyncio.run(extract_signals(kind="manual"))


def extraction(answer):
    """A script: extraction prompts get `answer(user_prompt_text)` (a list of actions), the rest (summaries,
    reconciliation) the offline model's answer."""

    def script(prompt):
        if is_summarize_prompt(prompt):
            return offline_answer(prompt)
        return json.dumps({"actions": answer(prompt[-1]["content"])})

    return script


def create(content: str, handle: str, quote: str, kind: str = "role", tier: str = "core") -> dict:
    return {"action": "create", "content": content, "tier": tier, "kind": kind,
            "evidence": [{"message": handle, "quote": quote}]}  # fmt: skip


@pytest.mark.parametrize(
    ("days", "mentions", "expected"),
    [
        (0, 1, 1.0),
        (30, 1, math.exp(-1)),  # S = 30
        (30, 3, math.exp(-0.5)),  # S = 30 * (1 + 0.5 * 2) = 60
        (90, 1, math.exp(-3)),  # 0.0498: under the 0.05 archive threshold
        (45, 2, math.exp(-1)),  # S = 45
        (-3, 1, 1.0),  # last seen after the reference time: no negative age
    ],
)
def test_decay_formula_golden_values(conn, days, mentions, expected):
    at = datetime(2026, 6, 1, tzinfo=UTC)
    value = conn.execute(
        "select signals.retention(%s, %s, %s)", [at - timedelta(days=days), mentions, at]
    ).fetchone()[0]
    assert value == pytest.approx(expected, rel=1e-12)


def test_decay_archives_stale_context_but_not_core_or_the_users_own(conn, settings, scripted):
    old = datetime.now(UTC) - timedelta(days=100)
    scripted.script = extraction(lambda _text: [
        create("Works as a nurse", "m1", "I'm a nurse"),
        create("Likes sailing", "m2", "I like sailing", kind="preference", tier="contextual"),
    ])  # fmt: skip
    load_conversations(
        conn, settings,
        conversation("old-1", "al", [("user", "I'm a nurse"), ("user", "I like sailing")], start=old),
    )  # fmt: skip
    user_paths.add_signal(conn, settings, "al", "Prefers plain language", "writing")
    summary = run()
    assert summary["actions"]["archived"] == 1
    rows = dict(conn.execute(
        "select content, status || ' ' || round(decay_score::numeric, 4) from signals.signals where user_id = 'al'"
    ).fetchall())  # fmt: skip
    assert rows["Likes sailing"].startswith("archived")
    assert rows["Works as a nurse"] == f"active {round(math.exp(-100 / 30), 4)}"
    assert rows["Prefers plain language"] == "active 1.0000"
    assert (
        conn.execute(
            "select count(*) from signals.events where action = 'archive' and user_id = 'al'"
        ).fetchone()[0]
        == 1
    )
    markdown = conn.execute(
        "select context_markdown from context.user_context where user_id = 'al'"
    ).fetchone()[0]
    assert "sailing" not in markdown and "Works as a nurse" in markdown


def test_summary_is_rebuilt_only_when_the_signal_set_changed(conn, settings, scripted):
    scripted.script = extraction(lambda _text: [create("Works as a pilot", "m1", "I'm a pilot")])
    load_conversations(conn, settings, conversation("bo-1", "bo", [("user", "I'm a pilot")]))
    run()
    summaries = [c for c in scripted.calls if is_summarize_prompt(c)]
    assert len(summaries) == 1
    first = conn.execute("select summary, fingerprint from signals.summaries where user_id = 'bo'").fetchone()
    assert "works as a pilot" in first[0]

    scripted.calls.clear()
    load_conversations(
        conn, settings, conversation("bo-2", "bo", [("user", "thanks!")], start=T0 + timedelta(days=1))
    )
    scripted.script = extraction(lambda _text: [])
    summary = run()
    assert summary["llm_calls"] == 1  # the extraction; the set did not change, so no summary call
    assert not [c for c in scripted.calls if is_summarize_prompt(c)]

    user_paths.add_signal(conn, settings, "bo", "Prefers metric units", "preference")
    scripted.calls.clear()
    summary = run()
    assert [c for c in scripted.calls if is_summarize_prompt(c)] and summary["llm_calls"] == 1
    second = conn.execute(
        "select summary, fingerprint from signals.summaries where user_id = 'bo'"
    ).fetchone()
    assert second[1] != first[1] and "prefers metric units" in second[0]


def test_a_batch_that_breaks_an_expectation_is_not_written(conn, settings, scripted):
    scripted.script = extraction(
        lambda text: (
            [create("Likes {{ config.theme }}", "m1", "I like it")]
            if "I like it" in text
            else [create("Works as a chef", "m1", "I'm a chef")]
        )
    )
    load_conversations(
        conn, settings,
        conversation("cy-1", "cy", [("user", "I like it")]),
        conversation("di-1", "di", [("user", "I'm a chef")]),
    )  # fmt: skip
    summary = run()
    assert summary["status"] == "partial" and summary["failures"] == 1
    failure = conn.execute("select user_id, stage, error_kind, message from ops.failures").fetchone()
    assert failure[:3] == ("cy", "validate", "quality_gate") and "not_match_regex(content)" in failure[3]
    assert conn.execute("select user_id from signals.signals").fetchall() == [("di",)]
    assert conn.execute("select count(*) from signals.watermarks where user_id = 'cy'").fetchone()[0] == 0


def test_a_critical_table_expectation_fails_the_run(conn, settings, scripted):
    scripted.script = extraction(lambda _text: [create("Works as a pilot", "m1", "I'm a pilot")])
    load_conversations(conn, settings, conversation("ed-1", "ed", [("user", "I'm a pilot")]))
    assert run()["status"] == "succeeded"
    conn.execute(  # an inferred signal nobody can justify: written around the pipeline, without evidence
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, "
        "first_seen_at, last_seen_at) values (gen_random_uuid(), 'ed', 'Is the CEO', 'is the ceo', 'role', "
        "'contextual', 'inferred', now(), now())"
    )
    with pytest.raises(Exception, match="every inferred signal has evidence"):
        run()
    status, error = conn.execute(
        "select status, error from ops.runs order by started_at desc limit 1"
    ).fetchone()
    assert status == "failed" and "every inferred signal has evidence: 1 offending row" in error


def test_a_failed_summary_is_a_warning_in_the_ledger_and_retried(conn, settings, scripted):
    scripted.script_summaries = True
    scripted.script = lambda p: (
        "not json"
        if is_summarize_prompt(p)
        else json.dumps({"actions": [create("Works as a pilot", "m1", "I'm a pilot")]})
    )
    load_conversations(conn, settings, conversation("fa-1", "fa", [("user", "I'm a pilot")]))
    summary = run()
    assert summary["status"] == "succeeded"
    warnings = conn.execute("select warnings from ops.runs").fetchone()[0]
    assert any("summary of fa not rebuilt" in w for w in warnings)
    assert any("summaries current for every user this run changed: 1" in w for w in warnings)
    scripted.script_summaries = False
    run()  # nothing new to extract; the summary is retried
    assert conn.execute("select count(*) from signals.summaries where user_id = 'fa'").fetchone()[0] == 1
