"""The hand-labelled evaluation set, eval/workplace-signals.json: it loads, it is as large and as varied as
eval/README.md says (scopes and validity included), and every label points at a message the user wrote. No
database: the eval itself runs it through the pipeline (tests/test_evaluate.py covers the command on a tiny
dataset)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

import pytest

from agent_signals.config import DEFAULT_KINDS
from agent_signals.evaluation.evaluate import read_dataset
from agent_signals.evaluation.matching import period
from agent_signals.store.loading.load import parse

pytestmark = pytest.mark.unit

DATASET = Path(__file__).resolve().parents[1] / "eval" / "workplace-signals.json"
NEGATIVE_KINDS = {"task_context", "org_fact", "other_people", "hypothetical", "sarcasm", "quoted", "pasted"}
POSITIVE_KINDS = set(DEFAULT_KINDS)  # the set covers every kind a signal can have


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(DATASET.read_text())


def test_it_loads_as_conversations_and_as_an_evaluation_dataset(raw: dict) -> None:
    conversations = parse(DATASET.read_text(), str(DATASET))
    dataset = read_dataset(raw, str(DATASET))
    assert len(conversations.conversations) == len(raw["conversations"])
    assert all(c.extract for c in conversations.conversations)
    assert len(dataset.users) == len(raw["users"])


def test_it_is_at_least_as_large_as_promised(raw: dict) -> None:
    user_messages = [m for c in raw["conversations"] for m in c["messages"] if m["role"] == "user"]
    assert len(raw["users"]) >= 37
    assert len(user_messages) >= 200
    owners = {c["user_id"] for c in raw["conversations"]}
    assert owners == {u["user_id"] for u in raw["users"]}, "every user has conversations and vice versa"


def test_every_negative_kind_is_present_several_times(raw: dict) -> None:
    facts = [f for u in raw["users"] for f in u["facts"]]
    negatives = Counter(f["negative_kind"] for f in facts if not f["expected_signal"])
    assert set(negatives) == NEGATIVE_KINDS
    assert min(negatives.values()) >= 8, negatives
    positives = Counter(f["kind_hint"] for f in facts if f["expected_signal"])
    assert set(positives) == POSITIVE_KINDS
    assert all(f.get("tier_hint") in ("core", "contextual") for f in facts if f["expected_signal"])


def test_every_label_cites_a_message_its_user_wrote(raw: dict) -> None:
    conversations = {c["conversation_id"]: c for c in raw["conversations"]}
    fact_ids = Counter()
    for user in raw["users"]:
        for fact in user["facts"] + user.get("distractor_facts", []):
            fact_ids[fact["fact_id"]] += 1
            assert fact["text"].strip() and fact["evidence"], fact
            for evidence in fact["evidence"]:
                conversation = conversations[evidence["conversation_id"]]
                assert conversation["user_id"] == user["user_id"], fact
                message = conversation["messages"][evidence["message_index"]]
                # facts cite the user's message; distractors cite what the assistant said about itself
                wanted = "assistant" if fact in user.get("distractor_facts", []) else "user"
                assert message["role"] == wanted, fact
    assert max(fact_ids.values()) == 1, "fact ids are unique"


def test_timestamps_increase_within_each_conversation(raw: dict) -> None:
    for conversation in raw["conversations"]:
        stamps = [m["created_at"] for m in conversation["messages"]]
        assert stamps == sorted(stamps), conversation["conversation_id"]


def test_scopes_are_covered_agents_facts_and_profile_facts_said_to_an_agent(raw: dict) -> None:
    """Agent-scoped facts, profile facts said inside an agent's conversation, users with two agents; every
    agent fact is said to exactly one agent (read_dataset refuses it otherwise) and gets that agent."""
    dataset = read_dataset(raw, str(DATASET))
    agents = {c["conversation_id"]: c.get("agent_id") for c in raw["conversations"]}
    per_user = defaultdict(set)
    for c in raw["conversations"]:
        if c.get("agent_id"):
            per_user[c["user_id"]].add(c["agent_id"])
    assert sum(len(a) == 2 for a in per_user.values()) >= 3, per_user
    expected = [f for f in dataset.facts if f.expected]
    agent_facts = [f for f in expected if f.agent_id is not None]
    said_to_an_agent = [f for f in expected if f.agent_id is None and any(agents[c] for c, _m in f.evidence)]
    assert len(agent_facts) >= 10 and len(said_to_an_agent) >= 12
    assert all({agents[c] for c, _m in f.evidence} == {f.agent_id} for f in agent_facts)
    assert all(f.tier == "contextual" for f in agent_facts), "an agent's inferred signals are contextual"
    labels = Counter(f.get("scope_hint", "profile") for u in raw["users"] for f in u["facts"])
    assert set(labels) == {"profile", "agent"}


def test_validity_hints_are_covered_and_agree_with_the_message_dates(raw: dict) -> None:
    """Facts that stopped holding ("until 2020", "no longer", a move to another team), that will stop
    ("until March") and that began at a said time ("since January", "last year"). Each hint is a period
    relative to the dates of the messages that state it (and, for a fact another replaced, its successor's):
    a start begins no later than the last of them and no later than the end."""
    conversations = {c["conversation_id"]: c for c in raw["conversations"]}
    facts = {f["fact_id"]: f for u in raw["users"] for f in u["facts"]}
    hinted = [f for f in facts.values() if "valid_from_hint" in f or "valid_to_hint" in f]
    assert all(f["expected_signal"] for f in hinted)
    over, to_come, starts = 0, 0, 0
    for fact in hinted:
        # a fact another replaced ("I moved from payments to fraud") ends in the message of its successor
        evidence = fact["evidence"] + facts.get(fact.get("superseded_by"), {}).get("evidence", [])
        said = max(
            datetime.fromisoformat(conversations[e["conversation_id"]]["messages"][e["message_index"]]["created_at"])
            for e in evidence
        )  # fmt: skip
        since = period(fact["valid_from_hint"]) if "valid_from_hint" in fact else None
        until = period(fact["valid_to_hint"]) if "valid_to_hint" in fact else None
        if since:
            starts += 1
            assert since.start <= said, fact
        if until:
            over += until.start <= said
            to_come += until.start > said
        if since and until:
            assert since.start <= until.end, fact
    assert over >= 6 and to_come >= 3 and starts >= 5, (over, to_come, starts)
