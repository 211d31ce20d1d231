"""`agent-signals eval` and `agent-signals replay`: the matcher on hand-made cases, the evaluation of a tiny
dataset with known figures (a real run in a scratch database), and a replay that writes nothing."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent_signals.errors import AgentSignalsError
from agent_signals.evaluation import evaluate
from agent_signals.evaluation.matching import (
    GoldFact,
    StoredSignal,
    credits,
    match,
    similarity,
    wrong_speaker,
)
from tests.builders import T0, conversation, load_conversations

TINY = Path(__file__).parent / "data" / "eval_tiny.json"


def fact(fact_id: str, text: str, *messages: str, expected: bool = True, user: str = "u") -> GoldFact:
    return GoldFact(fact_id, user, text, expected, frozenset(("c1", m) for m in messages))


def signal(content: str, *messages: str, user: str = "u") -> StoredSignal:
    return StoredSignal("s", user, content, "role", "core", frozenset(("c1", m) for m in messages))


@pytest.mark.unit
def test_similarity_compares_content_words_not_grammar():
    assert similarity("Has a son in junior high", "My son is in junior high.") == 1.0
    assert similarity("Watches horror movies", "I watch a horror movie") == 1.0
    assert similarity("Prefers short answers", "I like cooler weather.") == 0.0
    assert similarity("", "anything") == 0.0


@pytest.mark.unit
def test_a_signal_matches_the_fact_it_cites_and_states():
    son = fact("son", "My son is in junior high.", "m1")
    horror = fact("horror", "I watch horror movies.", "m1")  # the same message supports two facts
    weather = fact("weather", "I like cooler weather.", "m2")
    facts = [son, horror, weather]
    assert match(signal("Has a son in junior high", "m1"), facts) == son
    assert match(signal("Loves a good horror movie", "m1"), facts) == horror  # not stolen by `son`
    assert match(signal("Likes cooler weather", "m1"), facts) is None  # right text, wrong message
    assert match(signal("Owns a sailboat", "m1"), facts) is None  # right message, wrong text
    assert match(signal("Has a son in junior high", "m1", user="other"), facts) is None  # another user


@pytest.mark.unit
def test_wrong_speaker_is_a_signal_stating_the_other_speakers_fact():
    distractor = fact("d", "I have two jobs and I am tired.", "m9")
    assert wrong_speaker(signal("Has two jobs", "m1"), [distractor])
    assert not wrong_speaker(signal("Works as a nurse", "m1"), [distractor])
    # one shared topic is not the other speaker's fact
    assert not wrong_speaker(signal("Likes to hike", "m1"), [fact("d2", "I love to hike.", "m9")])


@pytest.mark.unit
def test_score_counts_precision_recall_negatives_and_tiers():
    role = GoldFact("role", "u", "I am a nurse.", True, frozenset({("c1", "m1")}), "role", "core")
    org = GoldFact("org", "u", "We use Postgres.", False, frozenset({("c1", "m2")}), negative_kind="org_fact")
    missed = GoldFact("pet", "u", "I have a dog.", True, frozenset({("c1", "m3")}), "personal")
    dataset = evaluate.Dataset(
        [], [role, org, missed], [fact("d", "I play chess every Sunday.", "m4")], ["u"]
    )
    signals = [
        StoredSignal("1", "u", "Works as a nurse", "role", "contextual", frozenset({("c1", "m1")})),
        StoredSignal("2", "u", "Uses Postgres", "expertise", "core", frozenset({("c1", "m2")})),
        StoredSignal(
            "3", "u", "Plays chess every Sunday", "personal", "contextual", frozenset({("c1", "m5")})
        ),
    ]
    report = evaluate.score(signals, dataset)
    assert (report.signals, report.correct, report.expected_facts, report.found_facts) == (3, 1, 2, 1)
    assert (round(report.precision, 3), report.recall) == (0.333, 0.5)
    assert report.negative_hits == {"org_fact": 1} and report.wrong_speaker == 1
    assert (report.tier_checked, report.tier_right) == (1, 0)
    assert report.as_dict()["by_signal_kind"]["role"] == {"signals": 1, "correct": 1, "precision": 1.0}
    assert report.as_dict()["by_fact_kind"]["role"] == {"expected_facts": 1, "found_facts": 1, "recall": 1.0}


def styx_journey_dog() -> list[GoldFact]:
    return [
        fact("styx", "I like Styx.", "m1"),
        fact("journey", "Journey is my favourite band.", "m2"),
        fact("dog", "I have a dog.", "m3"),
    ]


@pytest.mark.unit
def test_a_consolidated_signal_is_credited_with_every_fact_it_cites_and_states():
    facts = styx_journey_dog()
    both = StoredSignal("s", "u", "Likes Styx and Journey", "preference", "core",
                        frozenset({("c1", "m1"), ("c1", "m2"), ("c1", "m3")}))  # fmt: skip
    # the dog's message is cited too, but the signal says nothing of a dog: not credited
    assert sorted(f.fact_id for f in credits(both, facts)) == ["journey", "styx"]
    report = evaluate.score([both], evaluate.Dataset([], facts, [], ["u"]))
    assert (report.signals, report.correct, report.expected_facts) == (1, 1, 3)  # precision per signal
    assert (report.found_facts, report.found_single) == (2, 1)  # the old matcher found one of the two
    assert report.as_dict()["recall"] == 0.6667 and report.as_dict()["recall_single_match"] == 0.3333


@pytest.mark.unit
def test_a_fact_found_by_two_signals_counts_once():
    facts = styx_journey_dog()
    signals = [signal("Likes Styx", "m1"), signal("Likes Styx and Journey", "m1", "m2")]
    report = evaluate.score(signals, evaluate.Dataset([], facts, [], ["u"]))
    # Styx is stated by both signals and found once; Journey only by the consolidated one
    assert (report.signals, report.correct, report.found_facts, report.found_single) == (2, 2, 2, 1)
    assert report.recall == 2 / 3 and report.precision == 1.0


NOTHING = {"checked": 0, "right": 0, "accuracy": None}


@pytest.mark.unit
def test_score_of_nothing_divides_by_zero_as_before():
    """No signal and no fact: the frames are empty, the counts 0, the ratios 0.0 (None where the report
    says so), no kind listed."""
    report = evaluate.score([], evaluate.Dataset([], [], [], ["u"]))
    assert report.as_dict() == {
        "signals": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "expected_facts": 0, "found_facts": 0,
        "recall_single_match": 0.0, "found_facts_single_match": 0, "wrong_speaker": 0, "wrong_speaker_rate": 0.0,
        "negative_hits": {}, "tier_accuracy": None, "by_signal_kind": {}, "by_fact_kind": {},
        "scope_accuracy": None, "scope": {label: NOTHING for label in ("all", "profile", "agent")},
        "validity_accuracy": None,
        "validity": {part: NOTHING for part in ("all", "valid_to", "no_valid_to", "valid_from")},
    }  # fmt: skip
    # signals but no fact, then facts but no signal
    alone = evaluate.score([signal("Has a dog", "m1")], evaluate.Dataset([], [], [], ["u"])).as_dict()
    assert alone["by_signal_kind"] == {"role": {"signals": 1, "correct": 0, "precision": 0.0}}
    assert alone["by_fact_kind"] == {}
    report = evaluate.score([], evaluate.Dataset([], styx_journey_dog(), [], ["u"]))
    assert (report.expected_facts, report.found_facts, report.recall) == (3, 0, 0.0)
    assert report.as_dict()["by_signal_kind"] == {}
    assert report.as_dict()["by_fact_kind"] == {
        "unlabelled": {"expected_facts": 3, "found_facts": 0, "recall": 0.0}
    }  # a fact without kind_hint is counted as unlabelled


@pytest.mark.unit
def test_precision_is_by_the_stored_kind_and_recall_by_the_gold_kind_in_two_tables():
    """Issue 33: one table by kind set a gold kind's recall beside the signals of that stored kind
    ("education: signals 0, recall 1.000" when a signal stored as personal found the education fact)."""
    facts = [
        GoldFact("role", "u", "I am a nurse.", True, frozenset({("c1", "m1")}), "role"),
        GoldFact("pet", "u", "I have a dog.", True, frozenset({("c1", "m3")}), "personal"),
        GoldFact("law", "u", "I study law.", True, frozenset({("c1", "m5")}), "education"),
        GoldFact("neg", "u", "We use Postgres.", False, frozenset({("c1", "m2")}), "team"),  # not expected
    ]
    signals = [
        StoredSignal("1", "u", "Works as a nurse", "role", "core", frozenset({("c1", "m1")})),
        StoredSignal("2", "u", "Writes in short sentences", "writing", "core", frozenset({("c1", "m4")})),
        StoredSignal("3", "u", "Uses Postgres", "expertise", "core", frozenset({("c1", "m2")})),
        StoredSignal("4", "u", "Studies law", "personal", "contextual", frozenset({("c1", "m5")})),
    ]
    report = evaluate.score(signals, evaluate.Dataset([], facts, [], ["u"])).as_dict()
    assert report["by_signal_kind"] == {
        "expertise": {"signals": 1, "correct": 0, "precision": 0.0},
        "personal": {"signals": 1, "correct": 1, "precision": 1.0},  # the education fact, found
        "role": {"signals": 1, "correct": 1, "precision": 1.0},
        "writing": {"signals": 1, "correct": 0, "precision": 0.0},
    }  # sorted by kind
    assert report["by_fact_kind"] == {
        "education": {"expected_facts": 1, "found_facts": 1, "recall": 1.0},  # by a personal signal
        "personal": {"expected_facts": 1, "found_facts": 0, "recall": 0.0},
        "role": {"expected_facts": 1, "found_facts": 1, "recall": 1.0},
    }  # a negative fact's kind is no row ("team")


@pytest.mark.unit
def test_eval_prints_the_stored_kinds_and_the_gold_kinds_as_two_labelled_tables(capsys):
    from agent_signals.cli.evaluation import print_report

    facts = [GoldFact("law", "u", "I study law.", True, frozenset({("c1", "m5")}), "education")]
    signals = [StoredSignal("4", "u", "Studies law", "personal", "contextual", frozenset({("c1", "m5")}))]
    report = evaluate.score(signals, evaluate.Dataset([], facts, [], ["u"]))
    result = {"dataset": "d.json", "users": 1, "model": "m", "prompt_version": "v5", **report.as_dict(),
              "llm_calls": 1, "prompt_tokens": 1, "completion_tokens": 1, "cost_usd": 0.0, "failures": 0}  # fmt: skip
    print_report(result, report)
    out = capsys.readouterr().out.splitlines()
    stored = out.index(
        "  stored signals by the kind they were stored with (precision: matching an expected fact)"
    )
    gold = out.index("  expected facts by their gold kind, kind_hint (recall: found by a signal of any kind)")
    assert out[stored + 1].split() == ["stored", "kind", "signals", "right", "precision"]
    assert out[stored + 2].split() == ["personal", "1", "1", "1.000"]
    assert gold == stored + 3
    assert out[gold + 1].split() == ["gold", "kind", "facts", "found", "recall"]
    assert out[gold + 2].split() == ["education", "1", "1", "1.000"]
    assert not any(line.split()[:1] == ["education"] and "signals" in line for line in out)


@pytest.mark.unit
def test_ratios_are_rounded_by_python_not_by_polars():
    """1 right of 160: Python's round(0.00625, 4) is 0.0063 (the double is a hair above the half); polars'
    round(4) gives 0.0062. The table keeps the figure eval printed before polars computed it."""
    signals = [signal("Has a son in junior high", "m1")] + [
        signal(f"Owns sailboat number {i}", "m2") for i in range(159)
    ]
    report = evaluate.score(
        signals, evaluate.Dataset([], [fact("son", "My son is in junior high.", "m1")], [], ["u"])
    )
    assert report.as_dict()["by_signal_kind"]["role"]["precision"] == 0.0063 == report.as_dict()["precision"]


@pytest.mark.unit
def test_a_dataset_that_points_nowhere_is_refused_with_its_path():
    raw = json.loads(TINY.read_text())
    raw["users"][1]["facts"][0]["evidence"] = [{"conversation_id": "bo-1", "message_index": 99}]
    with pytest.raises(evaluate.DatasetError, match=r"users\[1\]\.facts\[0\]"):
        evaluate.read_dataset(raw, "tiny.json")
    with pytest.raises(evaluate.DatasetError, match="not an evaluation dataset"):
        evaluate.read_dataset({"users": {}}, "x.json")


def stored(signal_id: str, content: str, tier: str, *messages: str) -> StoredSignal:
    return StoredSignal(signal_id, "u", content, "role", tier, frozenset(("c1", m) for m in messages))


@pytest.mark.unit
def test_replay_pairs_the_same_text_in_order_then_by_the_matcher():
    """The same text twice written and once stored: the first written pairs with it (re-tiered here), the
    second is left to the matcher; a reworded signal citing the same message is a change, the rest drops."""
    from agent_signals.evaluation.replay import Diff, compare

    styx, journey = stored("s1", "Likes Styx", "contextual", "m1"), stored("s2", "Journey fan", "core", "m2")
    stamps = stored("s3", "Collects stamps", "core", "m9")
    first, second = stored("w1", "likes styx.", "core", "m1"), stored("w2", "Likes Styx", "core", "m1")
    reworded = stored("w3", "Is a Journey fan", "core", "m2")
    diff = Diff()
    compare([first, second, reworded], [styx, journey, stamps], diff)
    assert diff.retier == [(styx, first)] and diff.unchanged == 0
    assert diff.change == [(journey, reworded)] and diff.add == [second] and diff.drop == [stamps]
    empty = Diff()
    compare([], [], empty)
    compare([first], [], empty)
    compare([], [styx], empty)
    assert (empty.add, empty.drop, empty.change, empty.retier, empty.unchanged) == (
        [first],
        [styx],
        [],
        [],
        0,
    )


@pytest.mark.unit
def test_replay_lists_a_fact_in_another_scope_or_with_another_validity():
    """The same text in another scope would re-scope (paired with the stored one of its own scope first); the
    same text with another start or end would change validity; a reworded pair is a change and is listed
    under those too; a pair that differs in tier, scope and validity is listed under each."""
    from dataclasses import replace

    from agent_signals.evaluation.replay import Diff, compare

    may, june = datetime(2025, 5, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    falcon = stored("s1", "Calls the launch project Falcon", "contextual", "m1")
    bullets = replace(
        stored("s2", "Keeps release notes to five bullets", "contextual", "m2"), agent_id="scribe"
    )
    berlin = replace(stored("s3", "Lives in Berlin", "contextual", "m3"), valid_from=june)
    twice = [stored("s4", "Writes Go", "core", "m4"), replace(stored("s5", "Writes Go", "contextual", "m4"),
                                                             agent_id="codepilot")]  # fmt: skip
    lead = stored("s6", "Leads the SOC on-call rota", "core", "m5")
    written = [
        replace(falcon, signal_id="w1", agent_id="scribe"),  # the relationship's fact moved to its agent
        replace(bullets, signal_id="w2"),  # unchanged
        replace(berlin, signal_id="w3", valid_from=may),  # "last year", not the message's day
        replace(twice[1], signal_id="w4"),  # the agent's copy first: paired with its own scope
        replace(twice[0], signal_id="w5"),
        replace(lead, signal_id="w6", content="Is the SOC on-call lead", tier="contextual", agent_id="codepilot",
                valid_to=june),  # reworded, in another scope, ended
    ]  # fmt: skip
    diff = Diff()
    compare(written, [falcon, bullets, berlin, *twice, lead], diff)
    assert [(s.signal_id, w.signal_id) for s, w in diff.rescope] == [("s1", "w1"), ("s6", "w6")]
    assert [(s.signal_id, w.signal_id) for s, w in diff.revalidity] == [("s3", "w3"), ("s6", "w6")]
    assert [(s.signal_id, w.signal_id) for s, w in diff.change] == [("s6", "w6")]
    assert diff.retier == [] and diff.add == [] and diff.drop == [] and diff.unchanged == 3
    # the same text, one side of it in another scope and another tier: re-tiered and re-scoped
    both = Diff()
    compare([replace(twice[0], signal_id="w7", tier="contextual", agent_id="scribe")], [twice[0]], both)
    assert len(both.retier) == len(both.rescope) == 1 and both.unchanged == 0 and both.revalidity == []


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_eval_of_a_tiny_dataset_gives_known_figures(settings, conn):
    before = conn.execute("select count(*) from signals.signals").fetchone()[0]
    dataset = evaluate.read_dataset(json.loads(TINY.read_text()), str(TINY))
    report, summary = evaluate.run(settings, dataset)
    # ada: the role is found, the org fact and the on-call weekend are not stored; bo: style and ownership
    # found (style stored as core, labelled contextual), the manager fact not stored
    assert (report.signals, report.correct, report.expected_facts, report.found_facts) == (3, 3, 4, 3)
    assert (report.precision, report.recall, round(report.f1, 3)) == (1.0, 0.75, 0.857)
    assert report.wrong_speaker == 0 and not report.negative_hits
    assert (report.tier_checked, report.tier_right) == (3, 2)
    assert summary["llm_calls"] == 2  # one extraction call per user, the summary inside it
    # the project's database was not touched: the run happened in a scratch database
    assert conn.execute("select count(*) from signals.signals").fetchone()[0] == before


SNAPSHOT = """select (select count(*) from signals.signals), (select count(*) from signals.evidence),
                     (select count(*) from signals.events), (select count(*) from ops.runs),
                     (select count(*) from signals.watermarks),
                     (select md5(string_agg(signal_id::text || content || tier || status, ',' order by signal_id))
                        from signals.signals)"""


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_replay_prints_the_difference_and_writes_nothing(settings, conn):
    from agent_signals.evaluation.replay import replay
    from agent_signals.flows.extract import extract_signals
    from agent_signals.store.source import Window

    load_conversations(
        conn, settings,
        conversation("r1", "cy", [("user", "I'm a data engineer."), ("user", "I own the billing service.")]),
        conversation("r2", "di", [("user", "I prefer short answers with bullet points.")]),
    )  # fmt: skip
    asyncio.run(extract_signals(kind="manual", settings=settings))
    # history since: cy's ownership re-tiered by hand, di's signal gone, and a message nobody extracted yet
    conn.execute("update signals.signals set tier = 'contextual' where content = 'Owns the billing service'")
    conn.execute(
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status, "
        "first_seen_at, last_seen_at) values (gen_random_uuid(), 'di', 'Collects stamps', 'collects stamps', "
        "'personal', 'contextual', 'inferred', 'active', %s, %s)",
        [T0, T0],
    )
    conn.execute(
        "insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at) "
        "select signal_id, 'r2', '00001', 'I prefer', %s from signals.signals where content = 'Collects stamps'",
        [T0],
    )
    load_conversations(conn, settings, conversation("r3", "cy", [("user", "I'm on the payments team.")],
                                                    start=T0 + timedelta(hours=1)))  # fmt: skip
    before = conn.execute(SNAPSHOT).fetchone()

    window = Window(until=T0 + timedelta(days=1), since=T0 - timedelta(days=1), ignore_watermarks=True)
    diff, usage = asyncio.run(replay(settings.replace(prompt_version="v2"), window))
    assert [c.content for c in diff.add] == ["Is on the payments team"]
    assert [s.content for s in diff.drop] == ["Collects stamps"]
    assert [(s.content, s.tier, c.tier) for s, c in diff.retier] == [
        ("Owns the billing service", "contextual", "core")
    ]
    assert diff.change == [] and diff.unchanged == 2
    assert usage["llm_calls"] == 2 and usage["prompt_version"].startswith("extract/v2@")
    assert conn.execute(SNAPSHOT).fetchone() == before  # nothing written, not even a ledger row


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_replay_prints_a_fact_it_would_re_scope_or_give_another_validity(settings, conn):
    """Stored by hand since the run: cy's ownership as the agent's (the candidate, which answers no scope,
    writes it in the profile) and another start for the role (the candidate's is its message's day)."""
    from agent_signals.cli.describe import scope, validity
    from agent_signals.evaluation.replay import replay
    from agent_signals.flows.extract import extract_signals
    from agent_signals.store.source import Window

    load_conversations(
        conn, settings,
        conversation("r1", "cy", [("user", "I'm a data engineer."), ("user", "I own the billing service.")],
                     agent_id="scribe"),
    )  # fmt: skip
    asyncio.run(extract_signals(kind="manual", settings=settings))
    conn.execute(
        "update signals.signals set agent_id = 'scribe', tier = 'contextual' "
        "where content = 'Owns the billing service'"
    )
    earlier = T0 - timedelta(days=30)
    conn.execute("update signals.signals set valid_from = %s where content = 'Is a data engineer'", [earlier])
    window = Window(until=T0 + timedelta(days=1), since=T0 - timedelta(days=1), ignore_watermarks=True)
    diff, _usage = asyncio.run(replay(settings.replace(prompt_version="v2"), window))
    assert [(s.content, scope(s), scope(c)) for s, c in diff.rescope] == [
        ("Owns the billing service", "agent scribe", "profile")
    ]
    assert [(s.content, s.tier, c.tier) for s, c in diff.retier] == [
        ("Owns the billing service", "contextual", "core")
    ]
    assert [(s.content, validity(s), validity(c)) for s, c in diff.revalidity] == [
        ("Is a data engineer", f"{earlier:%Y-%m-%d}..now", f"{T0:%Y-%m-%d}..now")
    ]
    assert (diff.add, diff.drop, diff.change, diff.unchanged) == ([], [], [], 0)


EVERY_TABLE = """select table_schema || '.' || table_name from information_schema.tables
                  where table_schema in ('signals', 'ops') and table_type = 'BASE TABLE' order by 1"""


def row_counts(conn) -> dict[str, int]:
    tables = [name for (name,) in conn.execute(EVERY_TABLE).fetchall()]
    return {name: conn.execute(f"select count(*) from {name}").fetchone()[0] for name in tables}


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_replay_applies_the_rules_of_a_run_and_writes_nothing(settings, conn):
    """A signal the user deleted is not listed as an addition although the candidate prompt states it again
    (a run skips it as a tombstone), and a signal the user edited into their own is not dropped."""
    from agent_signals.evaluation.replay import replay
    from agent_signals.flows.extract import extract_signals
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store.source import Window

    load_conversations(
        conn, settings,
        conversation("r1", "cy", [("user", "I'm a data engineer."), ("user", "I own the billing service.")]),
        conversation("r2", "di", [("user", "I prefer short answers with bullet points.")]),
        conversation("r4", "fay", [("user", "I have epilepsy.")]),
    )  # fmt: skip
    asyncio.run(extract_signals(kind="manual", settings=settings))
    # fay's candidate states a special category: rejected and recorded (ops.rejected_actions, refers to a run)
    assert conn.execute("select count(*) from ops.rejected_actions where user_id = 'fay'").fetchone()[0] == 1
    ids = dict(conn.execute("select content, signal_id from signals.signals").fetchall())
    own_signals.delete_signal(conn, settings, "cy", ids["Owns the billing service"])
    own_signals.edit_signal(conn, settings, "di", ids["Prefers short answers with bullet points"],
                           "Prefers short answers, never bullet points", None)  # fmt: skip
    before, signals_before = row_counts(conn), conn.execute(SNAPSHOT).fetchone()

    window = Window(until=T0 + timedelta(days=1), since=T0 - timedelta(days=1), ignore_watermarks=True)
    diff, usage = asyncio.run(replay(settings.replace(prompt_version="v2"), window))
    assert usage["users"] == 3 and usage["failures"] == 0  # fay's rejection recorded in the rolled-back run
    assert (diff.add, diff.drop, diff.change, diff.retier, diff.unchanged) == ([], [], [], [], 1)
    # cy's role applied afresh; the deleted ownership stated again and skipped as a run skips it; fay's rejected
    assert usage["actions"] == {"created": 1, "skipped_special": 1, "skipped_tombstone": 1}
    assert row_counts(conn) == before and conn.execute(SNAPSHOT).fetchone() == signals_before


@pytest.mark.db
def test_replay_of_a_prompt_that_does_not_exist_says_which_do(settings):
    from agent_signals.core.prompting.prompts import prompt_set

    with pytest.raises(AgentSignalsError) as caught:
        prompt_set(settings, "extract", "v9")
    assert "v9" in caught.value.message and "v1, v2" in (caught.value.hint or "")


def replay_through_the_cli(server, conn, settings, **env: str):
    """`agent-signals replay` over two users' messages, the model being `server`."""
    from click.testing import CliRunner

    from agent_signals.cli import cli

    load_conversations(
        conn, settings,
        conversation("q1", "hal", [("user", "I'm a data engineer.")]),
        conversation("q2", "ivy", [("user", "I prefer short answers.")]),
    )  # fmt: skip
    since = (T0 - timedelta(days=1)).strftime("%Y-%m-%d")
    return CliRunner().invoke(
        cli, ["replay", "--prompt-version", "v5", "--since", since], env=server.env() | env
    )


@pytest.mark.db
def test_a_replay_whose_users_failed_prints_them_and_exits_non_zero(settings, conn):
    """Issue 33: a replay with every user failed printed `would add 0, drop 0` and exited 0."""
    from tests import http_model

    with http_model.serve(lambda _p, _b: http_model.SERVER_ERROR) as server:
        result = replay_through_the_cli(
            server, conn, settings, AGENT_SIGNALS_MAX_RETRIES="0", AGENT_SIGNALS_RETRY_BACKOFF_S="0"
        )
    assert isinstance(result.exception, AgentSignalsError), result.output
    assert "2 of 2 users failed under v5" in result.exception.message
    assert "failures 2" in result.output and json.loads(result.output.splitlines()[-1])["failures"] == 2


@pytest.mark.db
def test_a_replay_with_a_refused_key_stops_with_the_configuration_error(settings, conn):
    """Before, the misconfigured model stopped the replay's users and it printed an empty difference."""
    from agent_signals.adapters.llm import ModelMisconfigured
    from tests import http_model

    with http_model.serve(lambda _p, _b: http_model.UNAUTHORIZED) as server:
        result = replay_through_the_cli(server, conn, settings)
        assert len(server.requests) == 1  # the first call goes alone: no other user is tried
    assert isinstance(result.exception, ModelMisconfigured) and result.exception.exit_code == 2
    assert result.exception.kind == "authentication" and "would add" not in result.output
