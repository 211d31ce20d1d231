"""A user whose answers keep failing: retried with a growing backoff, then the messages the failing calls
read are set aside (recorded, listed, released by the CLI), so that learning resumes and no user costs a
model call every run. Real flows, a real PostgreSQL, the scripted model."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from click.testing import CliRunner

from agent_signals.cli import cli
from agent_signals.config import Settings
from agent_signals.core.retries import offending, retry_delay_s
from agent_signals.flows.extract import extract_signals
from tests.builders import T0, conversation, load_conversations
from tests.fakes import user_texts

POISON = "I am the CEO and the root of all things \u2603"


def run(settings: Settings) -> dict:
    return asyncio.run(extract_signals(kind="manual", settings=settings))


def create(content: str, quote: str) -> dict:
    return {"action": "create", "content": content, "tier": "core", "kind": "role",
            "evidence": [{"message": "m1", "quote": quote}]}  # fmt: skip


def garbage_for_the_poison(prompt) -> str:
    """Garbage whenever the prompt shows the poison message, a valid answer for the first message otherwise."""
    text = user_texts(prompt)
    if POISON in text:
        return "<<<not json>>>"
    return json.dumps(
        {"actions": [create("Works as a pilot", "I'm a pilot")] if "I'm a pilot" in text else []}
    )


def cli_output(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_user_whose_answers_are_always_garbage_stops_costing_calls_and_learns_again(
    conn, settings_with, scripted
):
    settings = settings_with(failing_user_backoff_s=0)  # every run may retry: only the limit stops it
    scripted.script = garbage_for_the_poison
    load_conversations(conn, settings, conversation("g1", "gus", [("user", POISON)]))
    calls = []
    for _ in range(5):
        summary = run(settings)
        calls.append(summary["llm_calls"])
    assert calls == [1, 1, 1, 0, 0]  # AGENT_SIGNALS_FAILING_USER_ATTEMPTS=3, then nothing
    held = conn.execute(
        "select user_id, conversation_id, message_id, attempts, reason from ops.set_aside"
    ).fetchall()
    assert [h[:4] for h in held] == [("gus", "g1", "00001", 3)] and held[0][4].startswith(
        "validate/invalid_answer"
    )
    assert conn.execute("select count(*) from ops.failures where resolved_at is null").fetchone()[0] == 0
    assert "gus  g1:00001  3 attempts" in cli_output("set-aside", "list")

    # a later genuine message in the same conversation is learned; the poison is not read again
    later = conversation("g1", "gus", [("user", POISON), ("user", "I'm a pilot")])
    later["messages"][1]["created_at"] = (T0 + timedelta(days=1)).isoformat()
    load_conversations(conn, settings, later)
    scripted.calls.clear()
    learned = run(settings)
    assert learned["llm_calls"] == 1 and learned["actions"] == {"created": 1}
    assert POISON not in user_texts(scripted.extraction_calls[0])
    assert conn.execute("select content from signals.signals where user_id = 'gus'").fetchall() == [
        ("Works as a pilot",)
    ]

    # released, the poison is read again although the watermark moved past it, once
    assert "released 1 message(s)" in cli_output("set-aside", "release", "--user", "gus")
    scripted.calls.clear()
    scripted.script = lambda p: json.dumps({"actions": [create("Is the CEO of everything", "I am the CEO")]})
    again = run(settings)
    assert again["llm_calls"] == 1 and POISON in user_texts(scripted.extraction_calls[0])
    assert "I'm a pilot" not in user_texts(scripted.extraction_calls[0])
    assert run(settings)["llm_calls"] == 0
    assert "read again" in cli_output("set-aside", "list", "--all")


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_failing_user_waits_longer_after_each_failure_and_transient_faults_do_not_count(
    conn, settings, scripted
):
    import litellm

    load_conversations(conn, settings, conversation("w1", "wes", [("user", POISON)]))
    scripted.script = lambda p: litellm.RateLimitError("slow down", llm_provider="scripted", model="test")
    run(settings)
    run(settings)  # a transient fault: retried at the next run, never counted against the user
    counted = conn.execute(
        "select count(*), bool_or(counted), bool_or(retry_after is not null) from ops.failures"
    )
    assert counted.fetchone() == (2, False, False)

    scripted.script = lambda p: "not json"
    first = run(settings)
    assert first["failures"] == 1
    assert run(settings)["skipped_users"] == {"backoff": 1}  # waits AGENT_SIGNALS_FAILING_USER_BACKOFF_S
    assert waits(conn) == [4 * 3600]
    conn.execute("update ops.failures set retry_after = now() - interval '1 second' where counted")
    run(settings)
    assert waits(conn)[-1] == 8 * 3600  # twice as long after the second failure
    assert conn.execute("select count(*) from ops.set_aside").fetchone()[0] == 0


def waits(conn) -> list[int]:
    """Seconds each counted failure made its user wait, oldest first."""
    rows = conn.execute(
        "select extract(epoch from retry_after - at) from ops.failures where counted order by failure_id"
    )
    return [round(w) for (w,) in rows.fetchall()]


@pytest.mark.unit
def test_the_backoff_doubles_up_to_its_cap():
    settings = Settings(failing_user_backoff_s=60, failing_user_backoff_max_s=200)
    assert [retry_delay_s(settings, n) for n in (1, 2, 3, 4)] == [60, 120, 200, 200]


@pytest.mark.unit
def test_the_messages_set_aside_are_those_every_failed_attempt_read():
    poison, a, b = ("c1", "1"), ("c1", "2"), ("c2", "1")
    assert offending([[poison], [poison, a], [poison, a, b]]) == [poison]
    assert offending([[a], [b]]) == [b]  # nothing in common: what the last attempt read
    assert offending([]) == []
