"""Scope and validity accuracy of `agent-signals eval` (evaluation.accuracy): the hinted periods, each
verdict right and wrong, the pair a found fact is judged on, the figures of score(), the dataset's hints
read and refused, and the evaluation's read of stored signals counting an ended one as extracted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_signals.evaluation import evaluate
from agent_signals.evaluation.accuracy import (
    judged_pairs,
    scope_right,
    scope_tallies,
    valid_from_right,
    valid_to_right,
    validity_right,
    validity_tallies,
)
from agent_signals.evaluation.matching import GoldFact, Period, StoredSignal, period

M1 = frozenset({("c1", "m1")})


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def gold(text: str = "I am on parental leave.", *, agent: str | None = None, since: str | None = None,
         until: str | None = None, expected: bool = True, fact_id: str = "f") -> GoldFact:  # fmt: skip
    return GoldFact(fact_id, "u", text, expected, M1, "personal", "contextual", None, agent,
                    period(since) if since else None, period(until) if until else None)  # fmt: skip


def stored(content: str = "Is on parental leave", *, agent: str | None = None, since: str | None = None,
           until: str | None = None, signal_id: str = "s") -> StoredSignal:  # fmt: skip
    return StoredSignal(signal_id, "u", content, "personal", "contextual", M1, agent,
                        day(since) if since else None, day(until) if until else None)  # fmt: skip


@pytest.mark.unit
def test_a_hint_names_a_year_a_month_or_a_day():
    assert period("2020") == Period("2020", day("2020-01-01"), day("2021-01-01"))
    assert period("2027-03") == Period("2027-03", day("2027-03-01"), day("2027-04-01"))
    assert period("2026-12") == Period("2026-12", day("2026-12-01"), day("2027-01-01"))
    assert period("2026-10-31") == Period("2026-10-31", day("2026-10-31"), day("2026-11-01"))
    for bad in ("March", "2026-13", "2026-02-30", "26-10", "2026-1", "2026-10-01T00:00"):
        with pytest.raises(ValueError):
            period(bad)


@pytest.mark.unit
def test_scope_is_right_in_the_profile_for_a_profile_fact_and_for_the_agent_for_an_agent_fact():
    profile, falcon = gold(), gold("We call the launch project Falcon.", agent="scribe")
    assert scope_right(profile, stored())
    assert not scope_right(profile, stored(agent="scribe"))  # a fact about the user narrowed to one agent
    assert scope_right(falcon, stored(agent="scribe"))
    assert not scope_right(falcon, stored())  # the relationship's fact spread to every agent
    assert not scope_right(falcon, stored(agent="codepilot"))  # another agent's
    pairs = [(profile, stored()), (profile, stored(agent="scribe")), (falcon, stored())]
    tallies = {label: (t.checked, t.right) for label, t in scope_tallies(pairs).items()}
    assert tallies == {"all": (3, 1), "profile": (2, 1), "agent": (1, 0)}


@pytest.mark.unit
def test_valid_to_is_inside_its_hinted_period_or_null_without_a_hint():
    leave = gold(until="2027-03")  # "until March"
    assert valid_to_right(leave, stored(until="2027-03-01"))
    assert valid_to_right(leave, stored(until="2027-03-15"))
    assert valid_to_right(leave, stored(until="2027-04-01"))  # held through March: ends as April begins
    assert not valid_to_right(leave, stored(until="2027-04-02"))
    assert not valid_to_right(leave, stored(until="2027-02-28"))
    assert not valid_to_right(leave, stored())  # the end was said and not kept
    lasting = gold()
    assert valid_to_right(lasting, stored())
    assert not valid_to_right(lasting, stored(until="2026-11-01"))  # a lasting fact ended by the model


@pytest.mark.unit
def test_valid_from_is_inside_its_hinted_period_and_free_without_a_hint():
    berlin = gold("I live in Berlin.", since="2025")  # "I moved to Berlin last year", said in 2026
    assert valid_from_right(berlin, stored("Lives in Berlin", since="2025-01-01"))
    assert valid_from_right(berlin, stored("Lives in Berlin", since="2025-06-30"))
    assert not valid_from_right(berlin, stored("Lives in Berlin", since="2026-01-01"))  # the end is outside
    assert not valid_from_right(berlin, stored("Lives in Berlin", since="2026-10-08"))  # the message's day
    assert not valid_from_right(berlin, stored("Lives in Berlin"))
    assert valid_from_right(gold(), stored(since="2026-10-08")) and valid_from_right(gold(), stored())
    # validity asks both: a right start does not save a wrong end, and the other way round
    assert validity_right(berlin, stored("Lives in Berlin", since="2025-03-01"))
    assert not validity_right(berlin, stored("Lives in Berlin", since="2025-03-01", until="2026-10-08"))
    teacher = gold("I was a teacher.", since="2014", until="2020")
    assert not validity_right(teacher, stored("Was a teacher", until="2020-06-30"))  # no start
    assert validity_right(teacher, stored("Was a teacher", since="2014-09-01", until="2020-06-30"))
    pairs = [
        (berlin, stored("Lives in Berlin", since="2025-03-01")),
        (gold(until="2027-03"), stored()),
        (gold(), stored()),
        (teacher, stored("Was a teacher", since="2014-09-01", until="2020-06-30")),
    ]
    tallies = {part: (t.checked, t.right) for part, t in validity_tallies(pairs).items()}
    assert tallies == {"all": (4, 3), "valid_to": (2, 1), "no_valid_to": (2, 2), "valid_from": (2, 2)}


@pytest.mark.unit
def test_a_found_fact_is_judged_on_its_most_similar_signal():
    """The old team's fact is also cited (and matched) by the new version that replaced it: it is judged on
    the ended version that states it. A negative fact is not judged, an unfound fact neither."""
    old = gold("I am on the payments team.", until="2026-11", fact_id="old")
    new = gold("I am on the fraud team.", since="2026-11", fact_id="new")
    negative = gold("I am the incident commander.", expected=False, fact_id="neg")
    missed = gold("I have a dog.", fact_id="dog")
    ended = stored("Is on the payments team", until="2026-11-03", signal_id="ended")
    current = stored("Is on the fraud team", since="2026-11-03", signal_id="current")
    commander = stored("Is the incident commander", signal_id="commander")
    facts, signals = [old, new, negative, missed], [current, ended, commander]
    credited = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (2, 2, 0)]  # (signal, fact, rank) as evaluate.matches()
    assert judged_pairs(facts, signals, credited) == [(old, ended), (new, current)]
    # equal similarity: the signal whose verdict the fact is, then the first
    twins = [
        stored("Is on the payments team", signal_id="a"),
        stored("Is on the payments team", signal_id="b"),
    ]
    assert judged_pairs([old], twins, [(0, 0, 1), (1, 0, 0)]) == [(old, twins[1])]
    assert judged_pairs([old], twins, [(1, 0, 0), (0, 0, 0)]) == [(old, twins[0])]


@pytest.mark.unit
def test_score_reports_scope_and_validity_and_counts_an_ended_signal_as_extracted():
    """The manager fact was ended ("I no longer manage the data team"): its signal is stored with a
    valid_to, extracted all the same (precision and recall), and its end is judged against the hint."""
    manager = GoldFact("mgr", "u", "I manage the data team.", True, M1, "role", "core",
                       valid_to=period("2026-10"))  # fmt: skip
    falcon = GoldFact("falcon", "u", "We call the launch project Falcon.", True, frozenset({("c2", "m1")}),
                      "preference", "contextual", agent_id="scribe")  # fmt: skip
    berlin = GoldFact("berlin", "u", "I live in Berlin.", True, frozenset({("c1", "m2")}), "location",
                      "contextual", valid_from=period("2025"))  # fmt: skip
    signals = [
        StoredSignal("1", "u", "Manages the data team", "role", "core", M1, None, None, day("2026-10-19")),
        StoredSignal("2", "u", "Calls the launch project Falcon", "preference", "contextual",
                     frozenset({("c2", "m1")})),  # the offline model: every signal in the profile
        StoredSignal("3", "u", "Lives in Berlin", "location", "contextual", frozenset({("c1", "m2")}),
                     None, day("2026-10-08")),  # the message's day, not last year
    ]  # fmt: skip
    report = evaluate.score(signals, evaluate.Dataset([], [manager, falcon, berlin], [], ["u"]))
    assert (report.signals, report.correct, report.found_facts, report.expected_facts) == (3, 3, 3, 3)
    figures = report.as_dict()
    assert figures["scope_accuracy"] == 0.6667
    assert figures["scope"]["profile"] == {"checked": 2, "right": 2, "accuracy": 1.0}
    assert figures["scope"]["agent"] == {"checked": 1, "right": 0, "accuracy": 0.0}
    assert figures["validity_accuracy"] == 0.6667
    assert figures["validity"]["valid_to"] == {"checked": 1, "right": 1, "accuracy": 1.0}
    assert figures["validity"]["no_valid_to"] == {"checked": 2, "right": 2, "accuracy": 1.0}
    assert figures["validity"]["valid_from"] == {"checked": 1, "right": 0, "accuracy": 0.0}


def dataset(agent: str | None, **hints) -> dict:
    return {
        "users": [{"user_id": "u", "facts": [
            {"fact_id": "f", "text": "We call the launch project Falcon.", "expected_signal": True,
             "evidence": [{"conversation_id": "c1", "message_index": 0}], **hints},
        ]}],
        "conversations": [{"conversation_id": "c1", "user_id": "u", "extract": True,
                           **({"agent_id": agent} if agent else {}),
                           "messages": [{"role": "user", "content": "let's keep calling it Falcon",
                                         "created_at": "2026-10-01T09:00:00Z"}]}],
    }  # fmt: skip


@pytest.mark.unit
def test_the_dataset_gives_an_agent_fact_the_agent_of_its_conversation_and_reads_the_periods():
    [fact] = evaluate.read_dataset(dataset("scribe", scope_hint="agent", valid_to_hint="2027-03"), "d").facts
    assert (fact.agent_id, fact.valid_to, fact.valid_from) == ("scribe", period("2027-03"), None)
    [fact] = evaluate.read_dataset(dataset("scribe", valid_from_hint="2025"), "d").facts
    assert (fact.agent_id, fact.valid_from) == (None, period("2025"))  # said to an agent, about the user
    [fact] = evaluate.read_dataset(dataset("scribe", scope_hint="profile"), "d").facts
    assert fact.agent_id is None


@pytest.mark.unit
def test_a_dataset_with_an_unusable_scope_or_period_is_refused_with_its_path():
    with pytest.raises(evaluate.DatasetError, match=r"users\[0\]\.facts\[0\]: scope_hint 'agent' needs"):
        evaluate.read_dataset(dataset(None, scope_hint="agent"), "d")  # a conversation without an agent
    with pytest.raises(evaluate.DatasetError, match="scope_hint 'agents' needs"):
        evaluate.read_dataset(dataset("scribe", scope_hint="agents"), "d")
    with pytest.raises(evaluate.DatasetError, match=r"facts\[0\]: valid_to_hint 'March' is not YYYY"):
        evaluate.read_dataset(dataset("scribe", valid_to_hint="March"), "d")


@pytest.mark.db
def test_the_evaluation_reads_an_ended_signal_with_its_scope_and_validity(settings, conn):
    """Ended (its validity over) is still an extracted fact; merged is not (its evidence went elsewhere)."""
    from agent_signals.store.evaluation import stored_signals
    from tests.builders import conversation, load_conversations

    load_conversations(conn, settings, conversation("c1", "u", [("user", "I no longer manage the data team")],
                                                    agent_id="coach"))  # fmt: skip
    for content, status, agent in [("Manages the data team", "ended", None), ("Asks for a question", "active",
                                   "coach"), ("Manages a team", "merged", None)]:  # fmt: skip
        conn.execute(
            "insert into signals.signals (signal_id, user_id, agent_id, content, normalized, kind, tier, origin,"
            " status, first_seen_at, last_seen_at, valid_from, valid_to) values (gen_random_uuid(), 'u', %s,"
            " %s, lower(%s), 'role', 'contextual', 'inferred', %s, now(), now(), %s, %s)",
            [agent, content, content, status, day("2024-02-01") if status == "ended" else None,
             day("2026-10-19") if status == "ended" else None],
        )  # fmt: skip
        conn.execute(
            "insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at) "
            "select signal_id, 'c1', '00000', 'I no longer', now() from signals.signals where content = %s",
            [content],
        )
    rows = {row[2]: row for row in stored_signals(conn)}
    assert set(rows) == {"Manages the data team", "Asks for a question"}
    assert rows["Manages the data team"][5:] == (
        frozenset({("c1", "00000")}),
        None,
        day("2024-02-01"),
        day("2026-10-19"),
    )
    assert rows["Asks for a question"][6:] == ("coach", None, None)
