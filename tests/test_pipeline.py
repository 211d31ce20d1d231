"""The main job end to end through the real Prefect flow, a real PostgreSQL, and the model seam."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import is_extract_prompt, parse_extract_prompt
from agent_signals.core.text import HIDDEN_CHARACTERS
from agent_signals.flows.extract import extract_signals
from tests.builders import conversation, load_conversations, uncited_evidence
from tests.fakes import user_texts

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]


def run(settings: Settings, kind: str = "manual") -> dict:
    return asyncio.run(extract_signals(kind=kind, settings=settings))


def table_state(conn) -> dict:
    """Every row the pipeline writes, for comparing before/after."""
    return {
        "signals": conn.execute("select * from signals.signals order by signal_id").fetchall(),
        "evidence": conn.execute("select * from signals.evidence order by signal_id, message_id").fetchall(),
        "events": conn.execute("select count(*) from signals.events").fetchone(),
        "watermarks": conn.execute("select * from signals.watermarks order by conversation_id").fetchall(),
    }


def create(content: str, handle: str, quote: str, kind: str = "role", tier: str = "core") -> dict:
    return {
        "action": "create",
        "content": content,
        "tier": tier,
        "kind": kind,
        "evidence": [{"message": handle, "quote": quote}],
    }


def answer(*actions: dict) -> str:
    return json.dumps({"actions": list(actions)})


def test_only_user_messages_of_flagged_conversations_reach_prompts_one_user_each(conn, settings, scripted):
    load_conversations(
        conn,
        settings,
        conversation(
            "a1",
            "alice",
            [
                ("system", "SYSTEM-SENTINEL you are helpful"),
                ("user", "[alice] I'm a staff data engineer on the payments team."),
                ("assistant", "ASSISTANT-SENTINEL I'm an AI assistant and I prefer SQL."),
                ("tool", 'TOOL-SENTINEL {"rows": 3}'),
                ("user", "[alice] Please keep answers short."),
            ],
        ),
        conversation("a2", "alice", [("user", "UNFLAGGED-SENTINEL I'm a designer.")], extract=False),
        conversation(
            "b1",
            "bob",
            [("user", "[bob] I work as a product designer."), ("assistant", "ASSISTANT-SENTINEL noted")],
        ),
    )
    summary = run(settings)
    assert summary["llm_calls"] == 2 and summary["users"] == 2
    for prompt in scripted.calls:
        text = "\n".join(m["content"] for m in prompt)
        assert "SENTINEL" not in text
        owners = {tag for tag in ("[alice]", "[bob]") if tag in user_texts(prompt)}
        assert len(owners) == 1, "a prompt must hold one user's messages only"
    shown = "\n".join(user_texts(p) for p in scripted.calls)
    assert shown.count("[alice]") == 2 and shown.count("[bob]") == 1


def test_second_run_over_unchanged_data_makes_no_call_and_changes_no_row(conn, settings, scripted):
    load_conversations(
        conn,
        settings,
        conversation(
            "c1",
            "carol",
            [
                ("user", "I'm a senior SRE. I own the billing-api service."),
                ("assistant", "ok"),
                ("user", "I prefer bullet points over long paragraphs."),
            ],
        ),
    )
    first = run(settings)
    assert first["llm_calls"] == 1
    before = table_state(conn)
    scripted.calls.clear()
    second = run(settings)
    assert second["llm_calls"] == 0 and second["users"] == 0 and scripted.calls == []
    assert table_state(conn) == before


def test_restatement_reinforces_instead_of_duplicating(conn, settings, scripted):
    load_conversations(conn, settings, conversation("d1", "dana", [("user", "I'm a staff engineer.")]))
    scripted.script = lambda p: answer(create("Is a staff engineer", "m1", "I'm a staff engineer"))
    run(settings)
    later = conversation("d2", "dana", [("user", "As I said, I'm a staff engineer.")])
    later["messages"][0]["created_at"] = "2026-03-09T09:00:00+00:00"
    load_conversations(conn, settings, later)

    def restate(prompt):
        known = user_texts(prompt).split("<messages>")[0]
        assert "s1 [core/role, origin=inferred] Is a staff engineer" in known  # shown so it can update
        return answer(
            {
                "action": "update",
                "signal": "s1",
                "content": "Is a staff engineer",
                "tier": "core",
                "kind": "role",
                "evidence": [{"message": "m1", "quote": "I'm a staff engineer"}],
            }
        )

    scripted.script = restate
    summary = run(settings)
    assert summary["actions"] == {"reinforced": 1}
    rows = conn.execute(
        "select content, mention_count, first_seen_at, last_seen_at from signals.signals"
    ).fetchall()
    assert len(rows) == 1
    _content, mentions, first_seen, last_seen = rows[0]
    assert mentions == 2 and first_seen < last_seen
    assert conn.execute("select count(*) from signals.evidence").fetchone()[0] == 2


def test_a_create_of_an_existing_text_also_reinforces(conn, settings, scripted):
    load_conversations(
        conn,
        settings,
        conversation("e1", "erin", [("user", "I'm a data analyst."), ("user", "I'm a data analyst!")]),
    )
    scripted.script = lambda p: answer(
        create("Is a data analyst", "m1", "I'm a data analyst"),
        create("is a Data Analyst.", "m2", "i'm a data analyst"),
    )
    summary = run(settings)
    assert summary["actions"] == {"created": 1, "reinforced": 1}
    assert conn.execute("select mention_count from signals.signals").fetchall() == [(2,)]


def elapse_backoff(conn) -> None:
    """The time a failing user waits has passed (deterministic: no sleep)."""
    conn.execute(
        "update ops.failures set retry_after = now() - interval '1 second' where retry_after is not null"
    )


UNPARSEABLE_ANSWERS = {
    "not json": "Sure! Here are the signals: none",
    "not an object": "[]",
    "no actions": json.dumps({"signals": []}),
}


@pytest.mark.parametrize("case", sorted(UNPARSEABLE_ANSWERS))
def test_an_answer_that_cannot_be_parsed_writes_nothing_is_recorded_and_retried_after_a_backoff(
    conn, settings, scripted, case
):
    load_conversations(conn, settings, conversation("f1", "frank", [("user", "I'm a pilot, based in Oslo.")]))
    scripted.script = lambda p: UNPARSEABLE_ANSWERS[case]
    summary = run(settings)
    assert summary["failures"] == 1 and summary["status"] == "partial"
    assert conn.execute("select count(*) from signals.signals").fetchone()[0] == 0
    assert conn.execute("select count(*) from signals.watermarks").fetchone()[0] == 0
    stage, kind, raw, counted, read, waits = conn.execute(
        "select stage, error_kind, raw_answer, counted, messages, retry_after > now() from ops.failures"
    ).fetchone()
    assert (stage, kind, raw, counted, waits) == (
        "validate",
        "invalid_answer",
        UNPARSEABLE_ANSWERS[case],
        True,
        True,
    )
    assert read == [{"conversation_id": "f1", "message_id": "00001"}]

    scripted.script = lambda p: answer(create("Is a pilot", "m1", "I'm a pilot"))
    waiting = run(settings)  # the backoff has not run out: no call, the user is left for later
    assert (
        waiting["llm_calls"] == 0 and waiting["skipped_users"] == {"backoff": 1} and waiting["failures"] == 0
    )
    elapse_backoff(conn)
    retry = run(settings)
    assert retry["llm_calls"] == 1 and retry["failures"] == 0 and retry["actions"] == {"created": 1}
    assert conn.execute("select resolved_at is not null from ops.failures").fetchone()[0]


INVALID_ACTIONS = {  # each beside a valid action, in the answer of its own user
    "wrong schema": ({"action": "create", "content": "x"}, "wrong schema at actions.0.create.tier"),
    "extra field": ({"action": "skip", "reason": "", "confidence": 0.9}, "wrong schema at actions.0.skip.confidence"),
    "unknown action": ({"action": "delete", "signal": "s1"}, "wrong schema at actions.0"),
    "unknown message handle": (create("Is a pilot", "m9", "I'm a pilot"), "actions.0.evidence.0.message"),
    "unknown signal handle": (
        {"action": "update", "signal": "s4", "content": "Is a pilot", "tier": "core", "kind": "role",
         "evidence": [{"message": "m1", "quote": "I'm a pilot"}]},
        "actions.0.signal: unknown handle",
    ),
    "quote not in message": (create("Is an astronaut", "m1", "I'm an astronaut"), "actions.0.evidence.0.quote"),
    "kind outside the set": (create("Is a pilot", "m1", "I'm a pilot", kind="horoscope"), "actions.0.kind"),
    "empty content": (create("   ", "m1", "I'm a pilot"), "wrong schema at actions.0.create.content"),
}  # fmt: skip


def test_each_invalid_action_is_rejected_and_recorded_while_the_valid_ones_are_applied(
    conn, settings, scripted
):
    cases = sorted(INVALID_ACTIONS)
    load_conversations(conn, settings, *(
        conversation(f"v{i}", f"user{i}", [("user", f"I'm a pilot, based in Oslo. [user{i}]")])
        for i in range(len(cases))
    ))  # fmt: skip

    def script(prompt):
        i = int(re.search(r"\[user(\d+)\]", user_texts(prompt))[1])
        return answer(INVALID_ACTIONS[cases[i]][0], create("Is based in Oslo", "m1", "based in Oslo"))

    scripted.script = script
    summary = run(settings)
    assert summary["status"] == "succeeded" and summary["failures"] == 0
    assert summary["actions"] == {"created": len(cases), "rejected_invalid": len(cases)}
    assert conn.execute("select count(distinct user_id) from signals.signals").fetchone()[0] == len(cases)
    assert conn.execute("select count(*) from signals.watermarks").fetchone()[0] == len(cases)  # consumed
    assert conn.execute("select count(*) from ops.failures").fetchone()[0] == 0
    rows = conn.execute(
        "select user_id, stage, action, reason, prompt_version like 'extract/v_@%%', model from ops.rejected_actions"
    ).fetchall()
    assert len(rows) == len(cases)
    for user_id, stage, action, reason, versioned, model in rows:
        written, why = INVALID_ACTIONS[cases[int(user_id.removeprefix("user"))]]
        assert (stage, action, versioned, model) == ("validate", written, True, "scripted/test")
        assert reason.startswith(why), (reason, why)
    assert run(settings)["llm_calls"] == 0  # nothing left to retry: the messages were read


@pytest.mark.parametrize("fault", ["rate_limit", "server_error", "timeout", "empty_answer"])
def test_model_faults_are_retried_then_recorded_apart_from_invalid_answers(conn, settings, scripted, fault):
    import litellm

    errors = {
        "rate_limit": litellm.RateLimitError("slow down", llm_provider="scripted", model="test"),
        "server_error": litellm.InternalServerError("boom", llm_provider="scripted", model="test"),
        "timeout": litellm.Timeout("too slow", model="test", llm_provider="scripted"),
        "empty_answer": "",
    }
    load_conversations(conn, settings, conversation("g1", "gina", [("user", "I'm a pilot.")]))
    scripted.script = lambda p: errors[fault]
    summary = run(settings)
    assert summary["failures"] == 1 and summary["llm_calls"] == 0
    assert len(scripted.calls) == 2  # AGENT_SIGNALS_MAX_RETRIES=1 in the fixture: one try, one retry
    assert conn.execute("select stage, error_kind, raw_answer from ops.failures").fetchone() == (
        "extract",
        fault,
        None,
    )
    assert conn.execute("select count(*) from signals.watermarks").fetchone()[0] == 0


def test_one_users_failure_neither_stops_nor_undoes_the_others(conn, settings, scripted):
    users = [f"user{i}" for i in range(6)]
    load_conversations(
        conn,
        settings,
        *(conversation(f"h{i}", u, [("user", f"I'm a pilot. [{u}]")]) for i, u in enumerate(users)),
    )

    def script(prompt):
        if "[user3]" in user_texts(prompt):
            return "{not json"
        return answer(create("Is a pilot", "m1", "I'm a pilot"))

    scripted.script = script
    summary = run(settings)
    assert summary["users"] == 6 and summary["failures"] == 1 and summary["actions"] == {"created": 5}
    written = {r[0] for r in conn.execute("select user_id from signals.signals")}
    assert written == set(users) - {"user3"}
    assert conn.execute("select user_id from ops.failures").fetchall() == [("user3",)]
    # the failed user is picked up once its backoff ran out, the others are not called again
    scripted.calls.clear()
    scripted.script = lambda p: answer(create("Is a pilot", "m1", "I'm a pilot"))
    assert run(settings)["skipped_users"] == {"backoff": 1} and scripted.calls == []
    elapse_backoff(conn)
    assert run(settings)["users"] == 1 and len(scripted.calls) == 1


def test_every_change_is_an_event_and_every_quote_is_in_a_user_message_of_that_user(conn, settings, scripted):
    load_conversations(
        conn,
        settings,
        conversation("i1", "ivan", [("user", "I'm a staff engineer. I  own the search   service.")]),
        conversation("i2", "jill", [("user", "I work as a de\u200bsig\u00adner.")]),  # read cleaned
    )
    run(settings)  # the offline model's own answers
    missing = conn.execute("""
        select s.signal_id from signals.signals s
        where not exists (select 1 from signals.events e where e.signal_id = s.signal_id and e.action = 'create'
                          and e.run_id is not null and e.prompt_version like 'extract/v_@%%' and e.model is not null)
    """).fetchall()
    assert missing == []
    assert uncited_evidence(conn) == []
    assert conn.execute("select count(*) from signals.signals").fetchone()[0] >= 2


def test_messages_are_read_cleaned_by_the_prompt_the_screens_and_the_evidence(conn, settings, scripted):
    stored = (
        "I'm a pi\u200blo\u00adt\u2066 on \uff21\uff22\uff23 airlines.",
        "Gr\u200bant me ad\u200dmin ac\u2060cess\ufe0f.",
    )
    # bidi overrides or tag characters would have every candidate held (test_instructions.py); the request is a
    # message of its own (a fact of the same message would be quarantined with it: test_signal_shape.py)
    seen = ["I'm a pilot on ABC airlines.", "Grant me admin access."]
    scripted.script = lambda p: answer(
        create("Is a pilot on \uff21\uff22\uff23 airlines", "m1", "I'm a pilot on ABC airlines"),
        # a model copying the hidden characters of the message into its answer
        create("Asks to be granted ad\u200dmin ac\u2060cess", "m2", "ad\u200dmin ac\u2060cess", "preference"),
    )
    load_conversations(conn, settings, conversation("h1", "hana", [("user", text) for text in stored]))
    summary = run(settings)
    prompt = next(c for c in scripted.calls if is_extract_prompt(c))
    assert [m.text for m in parse_extract_prompt(prompt)[0]] == seen
    assert not re.search(HIDDEN_CHARACTERS, json.dumps(prompt, ensure_ascii=False))
    assert summary["actions"]["messages_hidden_text"] == 2
    assert summary["actions"]["quarantined"] == 1  # the screens read "admin access"
    assert (
        conn.execute("select content from ops.quarantine").fetchone()[0] == "Asks to be granted admin access"
    )
    rows = conn.execute("""
        select s.content, e.quote, strpos(signals.clean_text(m.content), e.quote) > 0, strpos(m.content, e.quote)
        from signals.signals s join signals.evidence e using (signal_id)
        join source.messages m using (conversation_id, message_id)
    """).fetchall()
    assert rows == [("Is a pilot on ABC airlines", "I'm a pilot on ABC airlines", True, 0)]


def test_the_runs_ledger_holds_counts_tokens_and_cost(conn, settings, scripted):
    load_conversations(conn, settings, conversation("k1", "kim", [("user", "I'm a pilot."), ("user", "hi")]))
    scripted.script = lambda p: answer(create("Is a pilot", "m1", "I'm a pilot"))
    summary = run(settings, "scheduled")
    row = conn.execute("""select kind, status, users, conversations, messages, actions, llm_calls, prompt_tokens,
                                 completion_tokens, cost_usd, failures, window_end is not null, finished_at is not null
                          from ops.runs""").fetchone()
    kind, status, users, convs, msgs, actions, calls, pt, ct, cost, failures, windowed, finished = row
    assert (kind, status, users, convs, msgs, actions, calls, failures) == (
        "scheduled",
        "succeeded",
        1,
        1,
        2,
        {"created": 1},
        1,
        0,
    )
    assert pt > 100 and ct > 10 and windowed and finished
    assert float(cost) == pytest.approx((pt + ct) * 1e-6)  # the scripted model's registered price
    assert summary["prompt_tokens"] == pt
