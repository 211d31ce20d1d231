"""The three buckets through the real flow and a real PostgreSQL: the write-time core cap with its
reconciliation, the user's own (manual) signals, tombstones and near-duplicates."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import is_extract_prompt, is_reconcile_prompt, parse_extract_prompt
from agent_signals.errors import AgentSignalsError
from agent_signals.flows.extract import extract_signals
from agent_signals.stages.by_hand import own_signals
from agent_signals_offline.provider import answer
from tests.builders import T0, conversation, load_conversations

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]

# Thirty durable facts that share no words, so no two are near-duplicates of each other.
SYSTEMS = (
    "billing ledger",
    "fraud scoring",
    "search ranking",
    "checkout flow",
    "feature flags",
    "payroll export",
    "audit trail",
    "identity broker",
    "image resizer",
    "email relay",
    "pricing engine",
    "tax calculator",
    "warehouse sync",
    "inventory cache",
    "mobile gateway",
    "release train",
    "chaos drills",
    "cost reports",
    "survey tool",
    "access reviews",
    "data catalog",
    "video transcoder",
    "map tiles",
    "chat widget",
    "invoice renderer",
    "consent banner",
    "sandbox clusters",
    "quota service",
    "ticket router",
    "webhook hub",
)


def run(settings: Settings) -> dict:
    return asyncio.run(extract_signals(kind="manual", settings=settings))


def create(content: str, handle: str, quote: str, kind: str = "ownership", tier: str = "core") -> dict:
    return {"action": "create", "content": content, "tier": tier, "kind": kind,
            "evidence": [{"message": handle, "quote": quote}]}  # fmt: skip


def owns_each_message(prompt: list[dict]) -> str:
    """A model that reads every message "I own the X." as a core ownership signal."""
    if is_reconcile_prompt(prompt):
        return answer(prompt)
    messages, _known, _kinds = parse_extract_prompt(prompt)
    actions = [
        create(f"Owns the {m.text.removeprefix('I own the ').rstrip('.')}", m.handle, m.text)
        for m in messages
    ]
    return json.dumps({"actions": actions})


def state_facts(conn, settings, user: str, systems: tuple[str, ...], *, day: int) -> None:
    load_conversations(
        conn,
        settings,
        conversation(
            f"{user}-{day}",
            user,
            [("user", f"I own the {s}.") for s in systems],
            start=T0 + timedelta(days=day),
        ),
    )


def core_count(conn, user: str) -> int:
    return conn.execute(
        "select count(*) from signals.signals where user_id = %s and origin = 'inferred' "
        "and tier = 'core' and status = 'active'",
        [user],
    ).fetchone()[0]


def statuses(conn, user: str) -> dict[str, str]:
    rows = conn.execute(
        "select content, status || '/' || tier from signals.signals where user_id = %s", [user]
    ).fetchall()
    return dict(rows)


def test_thirty_identity_facts_leave_at_most_twenty_core_and_lose_none(conn, settings, scripted):
    scripted.script = owns_each_message
    for day, start in enumerate(range(0, 30, 10)):
        state_facts(conn, settings, "ann", SYSTEMS[start : start + 10], day=day)
        summary = run(settings)
        assert summary["failures"] == 0
        assert core_count(conn, "ann") <= 20
    assert core_count(conn, "ann") == 20
    assert len(statuses(conn, "ann")) == 30  # every fact is kept: active core, or demoted to contextual
    demoted = conn.execute(
        "select count(*) from signals.events where user_id = 'ann' and action = 'demote' and actor = 'reconciler'"
    ).fetchone()[0]
    assert demoted == 10
    extraction_calls = sum(1 for call in scripted.calls if is_extract_prompt(call))
    reconcile_calls = sum(1 for call in scripted.calls if is_reconcile_prompt(call))
    assert (extraction_calls, reconcile_calls) == (3, 1)  # reconciliation only when the cap was crossed


def test_the_database_refuses_a_commit_over_the_cap(conn, settings, scripted):
    scripted.script = owns_each_message
    state_facts(conn, settings, "bo", SYSTEMS[:20], day=0)
    run(settings)
    assert core_count(conn, "bo") == 20
    signal_id = conn.execute(
        "select signal_id from signals.signals where user_id = 'bo' and tier = 'core' limit 1"
    ).fetchone()[0]
    conn.execute("update signals.signals set tier = 'contextual' where signal_id = %s", [signal_id])
    with pytest.raises(psycopg.errors.CheckViolation, match="the cap is 20"):
        conn.execute(
            "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, "
            "first_seen_at, last_seen_at) values (gen_random_uuid(), 'bo', 'x', 'x', 'role', 'core', "
            "'inferred', now(), now()), (gen_random_uuid(), 'bo', 'y', 'y', 'role', 'core', 'inferred', now(), now())"
        )
    assert core_count(conn, "bo") == 19


@pytest.mark.parametrize(
    "bad_answer",
    [
        pytest.param('{"decisions": [{"action": "demote", "signal": "c99"}]}', id="unknown-handle"),
        pytest.param(
            '{"decisions": [{"action": "merge", "signals": ["u1", "c1"], "content": "Owns it all"}]}',
            id="merges-a-manual-signal",
        ),
        pytest.param('{"decisions": [{"action": "keep", "signal": "c1"}]}', id="leaves-it-over-the-cap"),
        pytest.param("I would demote c3.", id="not-json"),
        pytest.param(
            '{"decisions": [{"action": "demote", "signal": "c1"}, {"action": "keep", "signal": "c1"}]}',
            id="handle-twice",
        ),
    ],
)
def test_a_bad_reconciliation_answer_still_holds_the_cap_and_loses_nothing(
    conn, settings, scripted, bad_answer
):
    own_signals.add_signal(conn, settings, "cy", "Owns the whole platform", "ownership")
    scripted.script = owns_each_message
    state_facts(conn, settings, "cy", SYSTEMS[:20], day=0)
    run(settings)
    scripted.script = lambda p: bad_answer if is_reconcile_prompt(p) else owns_each_message(p)
    state_facts(conn, settings, "cy", SYSTEMS[20:23], day=1)
    summary = run(settings)

    assert summary["failures"] == 0 and summary["status"] == "succeeded"
    assert core_count(conn, "cy") == 20
    assert len(statuses(conn, "cy")) == 24  # 23 inferred + the user's own
    assert statuses(conn, "cy")["Owns the whole platform"] == "active/core"
    fallbacks = summary["actions"].get("reconcile_invalid", 0)
    assert fallbacks == 1 or bad_answer.startswith('{"decisions": [{"action": "keep"')
    rule = conn.execute(
        "select count(*) from signals.events where user_id = 'cy' and action = 'demote' "
        "and after ->> 'reason' = 'cap_rule'"
    ).fetchone()[0]
    assert rule == 3


def test_reconciliation_merges_keep_evidence_and_undo_reverses_them(conn, settings, scripted):
    scripted.script = owns_each_message
    state_facts(conn, settings, "di", SYSTEMS[:20], day=0)
    run(settings)

    def merge_first_two(prompt):
        if is_reconcile_prompt(prompt):
            return json.dumps({"decisions": [
                {"action": "merge", "signals": ["c1", "c2"], "content": "Owns the billing ledger and fraud scoring"}
            ]})  # fmt: skip
        return owns_each_message(prompt)

    scripted.script = merge_first_two
    state_facts(conn, settings, "di", SYSTEMS[20:21], day=1)
    run(settings)
    assert core_count(conn, "di") == 20
    survivor, merged_into, evidence = conn.execute(
        "select s.signal_id, m.merged_into, (select count(*) from signals.evidence e where e.signal_id = s.signal_id) "
        "from signals.signals s join signals.signals m on m.merged_into = s.signal_id "
        "where s.user_id = 'di' and m.status = 'merged'"
    ).fetchone()
    assert survivor == merged_into and evidence == 2
    content = conn.execute("select content from signals.signals where signal_id = %s", [survivor]).fetchone()[
        0
    ]
    assert content == "Owns the billing ledger and fraud scoring"
    event_id = conn.execute(
        "select event_id from signals.events where user_id = 'di' and action = 'merge'"
    ).fetchone()[0]

    # undoing the merge would bring back a 21st core signal: refused until one is demoted
    with pytest.raises(AgentSignalsError, match="over the core cap"):
        own_signals.undo(conn, settings, event_id)
    demotion = conn.execute(
        "select signal_id from signals.signals where user_id = 'di' and tier = 'core' and status = 'active' "
        "and signal_id <> %s limit 1",
        [survivor],
    ).fetchone()[0]
    own_signals.delete_signal(conn, settings, "di", demotion)
    own_signals.undo(conn, settings, event_id)
    assert statuses(conn, "di")["Owns the billing ledger"] == "active/core"
    assert statuses(conn, "di")["Owns the fraud scoring"] == "active/core"
    assert (
        conn.execute("select count(*) from signals.evidence where signal_id = %s", [survivor]).fetchone()[0]
        == 1
    )
    with pytest.raises(AgentSignalsError, match="already undone"):
        own_signals.undo(conn, settings, event_id)


def test_undo_of_a_demotion(conn, settings, scripted):
    scripted.script = owns_each_message
    state_facts(conn, settings, "ed", SYSTEMS[:21], day=0)
    run(settings)
    event_id, signal_id = conn.execute(
        "select event_id, signal_id from signals.events where user_id = 'ed' and action = 'demote'"
    ).fetchone()
    other = conn.execute(
        "select signal_id from signals.signals where user_id = 'ed' and tier = 'core' and status = 'active' limit 1"
    ).fetchone()[0]
    own_signals.delete_signal(conn, settings, "ed", other)
    assert "core again" in own_signals.undo(conn, settings, event_id)
    assert (
        conn.execute("select tier from signals.signals where signal_id = %s", [signal_id]).fetchone()[0]
        == "core"
    )


@pytest.mark.parametrize(
    "statement",
    [
        "update signals.signals set content = 'Is the CEO' where origin = 'manual'",
        "update signals.signals set tier = 'contextual' where origin = 'manual'",
        "update signals.signals set status = 'merged' where origin = 'manual'",
        "delete from signals.signals where origin = 'manual'",
        "update signals.signals set origin = 'inferred' where origin = 'manual'",
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, first_seen_at,"
        " last_seen_at) values (gen_random_uuid(), 'fi', 'Is the CEO', 'is the ceo', 'role', 'core', 'manual',"
        " now(), now())",
        "truncate signals.signals cascade",
    ],
)
def test_the_pipelines_own_connection_cannot_touch_a_manual_signal(conn, settings, statement):
    own_signals.add_signal(conn, settings, "fi", "Prefers British spelling", "writing")
    before = conn.execute("select * from signals.signals where origin = 'manual'").fetchall()
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert conn.execute("select * from signals.signals where origin = 'manual'").fetchall() == before


def test_the_users_word_wins_over_a_restatement_or_a_contradiction(conn, settings, scripted):
    own_signals.add_signal(conn, settings, "gu", "Works as a product designer", "role")
    own_signals.add_signal(conn, settings, "gu", "Prefers short answers", "communication")
    scripted.script = lambda p: json.dumps({"actions": [
        create("Works as a data engineer", "m1", "I'm a data engineer", kind="role"),
        create("Prefers short answers", "m2", "I prefer short answers", kind="communication"),
        create("Lives in Lisbon", "m3", "I live in Lisbon", kind="personal", tier="contextual"),
    ]})  # fmt: skip
    load_conversations(
        conn, settings,
        conversation("gu-1", "gu", [("user", "I'm a data engineer"), ("user", "I prefer short answers"),
                                    ("user", "I live in Lisbon")]),
    )  # fmt: skip
    summary = run(settings)
    assert summary["actions"]["skipped_manual"] == 2 and summary["actions"]["created"] == 1
    prompt = next(c for c in scripted.calls if is_extract_prompt(c))
    _messages, known, _kinds = parse_extract_prompt(prompt)
    assert {(k.content, k.origin) for k in known} >= {("Works as a product designer", "manual")}
    assert statuses(conn, "gu") == {
        "Works as a product designer": "active/core",
        "Prefers short answers": "active/core",
        "Lives in Lisbon": "active/contextual",
    }


def test_a_deleted_signal_is_a_tombstone_for_its_text_and_near_duplicates(conn, settings, scripted):
    scripted.script = lambda p: json.dumps({"actions": [
        create("Prefers answers without emojis", "m1", "no emojis", kind="writing"),
    ]})  # fmt: skip
    load_conversations(conn, settings, conversation("ha-1", "ha", [("user", "no emojis")]))
    run(settings)
    signal_id = conn.execute("select signal_id from signals.signals where user_id = 'ha'").fetchone()[0]
    own_signals.delete_signal(conn, settings, "ha", signal_id)

    for day, content in enumerate(
        ("Prefers answers without emojis", "Prefers answers without any emojis"), 1
    ):
        scripted.script = lambda p, content=content: json.dumps({"actions": [
            create(content, "m1", "no emojis", kind="writing"),
        ]})  # fmt: skip
        load_conversations(
            conn,
            settings,
            conversation(f"ha-{day + 1}", "ha", [("user", "no emojis")], start=T0 + timedelta(days=day)),
        )
        summary = run(settings)
        assert summary["actions"] == {"skipped_tombstone": 1}
    assert statuses(conn, "ha") == {"Prefers answers without emojis": "deleted/core"}


# Per user: a fact that gets deleted, an unrelated one kept, an unrelated one learned after the delete, and a
# restatement of the deleted fact (the same text, or in English a paraphrase), as message text -> signal.
SCRIPTS = {
    "zh": {
        "住在上海": "住在上海",  # lives in Shanghai
        "是一名数据工程师": "是一名数据工程师",  # is a data engineer
        "喜欢简短的回答": "喜欢简短的回答",  # likes short answers
        "我住在上海": "住在上海",
    },
    "ru": {
        "Живу в Москве": "Живёт в Москве",
        "Работаю инженером данных": "Работает инженером данных",
        "Люблю короткие ответы": "Предпочитает короткие ответы",
        "Я живу в Москве": "Живёт в Москве",
    },
    "en": {
        "no emojis please": "Prefers answers without emojis",
        "I own the billing ledger": "Owns the billing ledger",
        "I live in Porto": "Lives in Porto",
        "no emojis at all, please": "Prefers answers without any emojis",
    },
}


def test_unrelated_facts_in_any_script_stay_apart_and_a_tombstone_blocks_only_its_own(
    conn, settings_with, scripted
):
    settings = settings_with(signal_language="any")  # signals in each user's own language

    def states_each_message(prompt):
        messages, _known, _kinds = parse_extract_prompt(prompt)
        facts = {text: content for script in SCRIPTS.values() for text, content in script.items()}
        return json.dumps({"actions": [
            create(facts[m.text], m.handle, m.text, kind="personal", tier="contextual") for m in messages
        ]})  # fmt: skip

    scripted.script = states_each_message
    for user, script in SCRIPTS.items():
        deleted, kept, _later, _again = script
        load_conversations(
            conn, settings, conversation(f"{user}-1", user, [("user", deleted), ("user", kept)])
        )
    assert run(settings)["actions"] == {"created": 6}
    for user, script in SCRIPTS.items():
        assert set(statuses(conn, user).values()) == {"active/contextual"} and len(statuses(conn, user)) == 2
        signal_id = conn.execute(
            "select signal_id from signals.signals where user_id = %s and content = %s",
            [user, script[next(iter(script))]],
        ).fetchone()[0]
        own_signals.delete_signal(conn, settings, user, signal_id)

    for user, script in SCRIPTS.items():
        _deleted, _kept, later, again = script
        load_conversations(
            conn,
            settings,
            conversation(f"{user}-2", user, [("user", later), ("user", again)], start=T0 + timedelta(days=1)),
        )
    assert run(settings)["actions"] == {"created": 3, "skipped_tombstone": 3}
    for user, script in SCRIPTS.items():
        deleted, kept, later, _again = (script[text] for text in script)
        assert statuses(conn, user) == {
            deleted: "deleted/contextual",
            kept: "active/contextual",
            later: "active/contextual",
        }


def test_three_phrasings_of_one_preference_end_as_one_active_version(conn, settings, scripted):
    """An update that changes the text writes a new version and ends the old one where it begins (m022);
    the third phrasing restates the new version."""
    answers = iter([
        create("Prefers short answers", "m1", "short answers please", kind="communication"),
        {"action": "update", "signal": "s1", "content": "Prefers short, direct answers", "tier": "core",
         "kind": "communication", "evidence": [{"message": "m1", "quote": "keep it short and direct"}]},
        create("Prefers short and direct answers", "m1", "short and direct, as always", kind="communication"),
    ])  # fmt: skip
    scripted.script = lambda p: json.dumps({"actions": [next(answers)]})
    texts = ("short answers please", "keep it short and direct", "short and direct, as always")
    for day, text in enumerate(texts):
        load_conversations(
            conn, settings, conversation(f"io-{day}", "io", [("user", text)], start=T0 + timedelta(days=day))
        )
        assert run(settings)["failures"] == 0
    rows = conn.execute(
        "select signal_id, content, status, mention_count, valid_from, valid_to, supersedes from signals.signals"
        " where user_id = 'io' order by created_at"
    ).fetchall()
    (
        (old, old_text, old_status, _m, old_from, old_to, _s),
        (new, text, status, mentions, new_from, new_to, after),
    ) = rows
    assert (old_text, old_status, old_from, old_to) == (
        "Prefers short answers",
        "ended",
        T0,
        T0 + timedelta(days=1),
    )
    assert (text, status, mentions, new_from, new_to, after) == (
        "Prefers short, direct answers",
        "active",
        2,
        T0 + timedelta(days=1),
        None,
        old,
    )
    assert new != old


def test_embeddings_are_stored_searchable_and_their_dimension_checked(conn, settings, scripted):
    scripted.script = lambda p: json.dumps({"actions": [
        create("Works as a site reliability engineer", "m1", "I'm an SRE", kind="role"),
    ]})  # fmt: skip
    load_conversations(conn, settings, conversation("jo-1", "jo", [("user", "I'm an SRE")]))
    own_signals.add_signal(conn, settings, "ka", "Writes in British English", "writing")
    summary = run(settings)
    assert summary["embedding_calls"] == 2  # the hand-added signal, then the user's new signal
    assert conn.execute("select count(*) from signals.signals where embedding is null").fetchone()[0] == 0
    hits = own_signals.search(conn, settings, "site reliability engineer", user_id=None, limit=1)
    assert hits[0]["user_id"] == "jo" and hits[0]["similarity"] > 0.5

    from agent_signals.errors import SchemaError
    from agent_signals.store.schema.migrate import check_current

    with pytest.raises(SchemaError, match="vector\\(256\\)") as caught:
        check_current(conn, settings.replace(embedding_dim=128))
    assert "AGENT_SIGNALS_EMBEDDING_DIM" in caught.value.hint


@pytest.mark.parametrize(
    "text",
    [
        "  Works as a Data Engineer. ",
        "I\u2019m \u201cthe\u201d owner!!",
        "tabs\tand\nnewlines\r\n  collapse",
        "(Prefers) [short] answers?",
        "\u00a0non\u00a0breaking\u00a0spaces ",
        "ﬁne ligatures and full-width ＡＢＣ",
        "control\x07characters\x1b",
    ],
)
def test_the_sql_and_python_text_keys_agree(conn, text):
    from agent_signals.core.text import normalize_content

    assert conn.execute("select signals.normalize_text(%s)", [text]).fetchone()[0] == normalize_content(text)
