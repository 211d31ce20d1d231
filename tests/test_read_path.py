"""Decay, summaries and the quality gates, through the real flow (real PostgreSQL, dbt and GX)."""

from __future__ import annotations

import asyncio
import json
import math
from datetime import UTC, datetime, timedelta

import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import is_summarize_prompt
from agent_signals.flows.extract import extract_signals
from agent_signals.stages.by_hand import own_signals
from agent_signals.stages.run import idle
from agent_signals_offline.provider import answer as offline_answer
from tests.builders import T0, conversation, load_conversations

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]


@pytest.fixture
def settings(settings_with, scripted) -> Settings:
    """With summaries on (the scripted settings turn them off for the other test modules)."""
    return settings_with(summaries=True)


def run(settings: Settings) -> dict:
    return asyncio.run(extract_signals(kind="manual", settings=settings))


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
    own_signals.add_signal(conn, settings, "al", "Prefers plain language", "writing")
    summary = run(settings)
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
    run(settings)
    summaries = [c for c in scripted.calls if is_summarize_prompt(c)]
    assert len(summaries) == 1
    first = conn.execute("select summary, fingerprint from signals.summaries where user_id = 'bo'").fetchone()
    assert "works as a pilot" in first[0]

    scripted.calls.clear()
    load_conversations(
        conn, settings, conversation("bo-2", "bo", [("user", "thanks!")], start=T0 + timedelta(days=1))
    )
    scripted.script = extraction(lambda _text: [])
    summary = run(settings)
    assert summary["llm_calls"] == 1  # the extraction; the set did not change, so no summary call
    assert not [c for c in scripted.calls if is_summarize_prompt(c)]

    own_signals.add_signal(conn, settings, "bo", "Prefers metric units", "preference")
    scripted.calls.clear()
    summary = run(settings)
    assert [c for c in scripted.calls if is_summarize_prompt(c)] and summary["llm_calls"] == 1
    second = conn.execute(
        "select summary, fingerprint from signals.summaries where user_id = 'bo'"
    ).fetchone()
    assert second[1] != first[1] and "prefers metric units" in second[0]


def test_a_candidate_that_breaks_an_expectation_is_rejected_alone(conn, settings, scripted):
    scripted.script = extraction(
        lambda text: (
            [
                create("Prefers {} for empty dicts", "m1", "I like it"),
                create("Works as a chef", "m2", "I cook"),
            ]
            if "I like it" in text
            else [create("Works as a chef", "m1", "I'm a chef")]
        )
    )
    load_conversations(
        conn, settings,
        conversation("cy-1", "cy", [("user", "I like it"), ("user", "I cook")]),
        conversation("di-1", "di", [("user", "I'm a chef")]),
    )  # fmt: skip
    summary = run(settings)
    assert summary["status"] == "succeeded" and summary["failures"] == 0
    assert (summary["actions"]["created"], summary["actions"]["rejected_gate"]) == (2, 1)
    rejected = conn.execute("select user_id, stage, reason, action ->> 'content' from ops.rejected_actions")
    user, stage, reason, content = rejected.fetchone()
    assert (user, stage, content) == ("cy", "gate", "Prefers {} for empty dicts")
    assert "not_match_regex(content)" in reason
    assert conn.execute("select user_id from signals.signals order by 1").fetchall() == [("cy",), ("di",)]
    assert conn.execute("select count(*) from signals.watermarks where user_id = 'cy'").fetchone()[0] == 1
    assert conn.execute("select count(*) from ops.failures").fetchone()[0] == 0


def test_a_critical_table_expectation_fails_the_run(conn, settings, scripted):
    scripted.script = extraction(lambda _text: [create("Works as a pilot", "m1", "I'm a pilot")])
    load_conversations(conn, settings, conversation("ed-1", "ed", [("user", "I'm a pilot")]))
    assert run(settings)["status"] == "succeeded"
    conn.execute(  # an inferred signal nobody can justify: written around the pipeline, without evidence
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, "
        "first_seen_at, last_seen_at) values (gen_random_uuid(), 'ed', 'Is the CEO', 'is the ceo', 'role', "
        "'contextual', 'inferred', now(), now())"
    )
    with pytest.raises(Exception, match="every inferred signal has evidence"):
        run(settings)
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
    summary = run(settings)
    assert summary["status"] == "succeeded"
    warnings = conn.execute("select warnings from ops.runs").fetchone()[0]
    assert any("summary of fa not rebuilt" in w for w in warnings)
    assert any("summaries current for every user this run changed: 1" in w for w in warnings)
    scripted.script_summaries = False
    run(settings)  # nothing new to extract; the summary is retried
    assert conn.execute("select count(*) from signals.summaries where user_id = 'fa'").fetchone()[0] == 1


def _pilot_who_sails(conn, settings, scripted, user: str) -> None:
    """A user with a core and a contextual signal, a summary naming both and built views."""
    scripted.script = extraction(lambda _text: [
        create("Works as a pilot", "m1", "I'm a pilot"),
        create("Likes sailing", "m2", "I like sailing", kind="preference", tier="contextual"),
    ])  # fmt: skip
    load_conversations(
        conn, settings,
        conversation(f"{user}-1", user, [("user", "I'm a pilot"), ("user", "I like sailing")]),
    )  # fmt: skip
    assert run(settings)["status"] == "succeeded"
    summary = conn.execute("select summary from signals.summaries where user_id = %s", [user]).fetchone()[0]
    assert "works as a pilot" in summary and "likes sailing" in summary


def _signal_id(conn, user: str, content: str) -> str:
    return str(conn.execute(
        "select signal_id from signals.signals where user_id = %s and content = %s", [user, content]
    ).fetchone()[0])  # fmt: skip


def test_a_summary_is_rebuilt_when_a_refresh_by_hand_consumed_the_dirty_mark(conn, settings, scripted):
    from click.testing import CliRunner

    from agent_signals.cli import cli

    _pilot_who_sails(conn, settings, scripted, "gil")
    # an application's settings page deletes through the SQL function; an operator then rebuilds the views
    conn.execute("select signals.delete_signal('gil', %s)", [_signal_id(conn, "gil", "Likes sailing")])
    refreshed = CliRunner().invoke(cli, ["views", "refresh"])
    assert refreshed.exit_code == 0, refreshed.output
    assert conn.execute("select count(*) from signals.dirty_users where user_id = 'gil'").fetchone()[0] == 0
    # `agent-signals run` does not take this for a run with nothing to do
    assert "stale_summaries" in idle.pending_work(settings, datetime.now(UTC))
    scripted.calls.clear()
    summary = run(settings)
    assert [c for c in scripted.calls if is_summarize_prompt(c)] and summary["actions"]["summarized"] == 1
    rebuilt, view = conn.execute(
        "select m.summary, c.summary from signals.summaries m join context.user_context c using (user_id) "
        "where user_id = 'gil'"
    ).fetchone()
    assert "works as a pilot" in rebuilt and "sailing" not in rebuilt and view == rebuilt
    scripted.calls.clear()
    run(settings)  # the summary matches the signals again: no call
    assert not scripted.calls


def test_a_deleted_or_edited_signal_leaves_the_context_view_when_the_command_returns(
    conn, settings, scripted
):
    from tests.test_cli import agent_signals

    _pilot_who_sails(conn, settings, scripted, "hal")

    def context() -> tuple[str, str | None]:
        return conn.execute(
            "select context_markdown, summary from context.user_context where user_id = 'hal'"
        ).fetchone()

    assert "Likes sailing" in context()[0]
    deleted = agent_signals(
        "signals", "delete", "--user", "hal", _signal_id(conn, "hal", "Likes sailing")[:8]
    )
    assert deleted.returncode == 0, deleted.stderr
    markdown, summary = context()
    assert "sailing" not in markdown.lower() and "sailing" not in (summary or "").lower()
    assert "Works as a pilot" in markdown

    edited = agent_signals(
        "signals", "edit", "--user", "hal", _signal_id(conn, "hal", "Works as a pilot")[:8],
        "Works as a flight instructor",
    )  # fmt: skip
    assert edited.returncode == 0, edited.stderr
    markdown, summary = context()
    assert "pilot" not in markdown.lower() and "pilot" not in (summary or "").lower()
    assert "### Confirmed by the user\n- Works as a flight instructor" in markdown

    # the user stays marked: the next run writes the summary of what is left, and only that
    assert conn.execute("select count(*) from signals.dirty_users where user_id = 'hal'").fetchone()[0] == 1
    scripted.calls.clear()
    run(settings)
    assert len([c for c in scripted.calls if is_summarize_prompt(c)]) == 1
    markdown, summary = context()
    assert "flight instructor" in summary and "pilot" not in summary and "sailing" not in summary


def test_a_run_over_old_history_needs_no_summary_call(conn, settings, scripted):
    """Contextual facts from old messages are archived as they are written (the decay formula at the run's
    time), and the extraction call's summary leaves them out: no summarize call, nothing for decay to do."""
    old = datetime.now(UTC) - timedelta(days=400)
    recent = datetime.now(UTC) - timedelta(days=2)
    load_conversations(
        conn, settings,
        conversation("ol-1", "ola", [("user", "I'm a nurse at the city hospital."),
                                     ("user", "I love sailing on weekends.")], start=old),
        conversation("ol-2", "ola", [("user", "I have two dogs.")], start=recent),
        conversation("pe-1", "per", [("user", "I prefer short answers."),
                                     ("user", "My favorite food is sushi.")], start=old),
        conversation("qu-1", "qui", [("user", "I love sailing on weekends.")], start=old),
    )  # fmt: skip
    summary = run(settings)
    assert summary["llm_calls_by_purpose"] == {"extract": 3}  # one call per user, no summarize call
    assert summary["actions"]["archived"] == 3
    statuses = dict(conn.execute(
        "select content, status from signals.signals where user_id in ('ola', 'per', 'qui')"
    ).fetchall())  # fmt: skip
    assert statuses == {  # ola's and qui's sailing are one text
        "Is a nurse": "active", "Loves sailing on weekends": "archived", "Has two dogs": "active",
        "Prefers short answers": "active", "Favourite food is sushi": "archived",
    }  # fmt: skip
    texts = dict(conn.execute("select user_id, summary from context.user_context").fetchall())
    assert "sailing" not in texts["ola"] and "is a nurse" in texts["ola"] and "has two dogs" in texts["ola"]
    assert "sushi" not in texts["per"] and "prefers short answers" in texts["per"]
    assert "qui" not in texts  # nothing of hers is active: no summary, no row
    assert conn.execute(
        "select count(*) from signals.summaries where user_id = 'qui'").fetchone()[0] == 0  # fmt: skip
    scripted.calls.clear()
    again = run(settings)
    assert not scripted.calls and again["actions"].get("archived", 0) == 0
