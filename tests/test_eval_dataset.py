"""The hand-labelled evaluation set, eval/workplace-signals.json: it loads, it is as large and as varied as
eval/README.md says, and every label points at a message the user wrote. No database: the eval itself runs
it through the pipeline (tests/test_evaluate.py covers the command on a tiny dataset)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agent_signals.config import DEFAULT_KINDS
from agent_signals.evaluation.evaluate import read_dataset
from agent_signals.store.load import parse

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
    assert len(raw["users"]) >= 30
    assert len(user_messages) >= 150
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
