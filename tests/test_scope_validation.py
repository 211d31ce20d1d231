"""Validation of an answer's scopes (core/validate.py), whatever the model claims: an agent's signal takes the
agent of the messages it cites, never one the model names; it cites one agent's conversations only; an update
keeps its signal's scope (said or not); an agent's signal is contextual."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from agent_signals.config import Settings
from agent_signals.core.outcome import validate_answer
from agent_signals.core.prompting.answers import parse_extract_actions
from agent_signals.core.prompting.extract_calls import Call, KnownSignal, SourceMessage

pytestmark = pytest.mark.unit

AT = datetime(2026, 11, 1, tzinfo=UTC)
CALL = Call(
    prompt=[],
    messages={
        "m1": SourceMessage.read("c1", "1", "We train for the marathon together.", AT, agent_id="coach"),
        "m2": SourceMessage.read("c2", "1", "Plan my vegan menu.", AT, agent_id="chef"),
        "m3": SourceMessage.read("c3", "1", "I live in Lisbon.", AT),
    },
    signals={
        "s1": KnownSignal(
            uuid4(),
            "Trains for a marathon",
            "trains for a marathon",
            "contextual",
            "preference",
            "inferred",
            "coach",
        ),
        "s2": KnownSignal(uuid4(), "Lives in Porto", "lives in porto", "core", "location", "inferred"),
    },
)


def judged(*actions: dict) -> tuple[list, list[str]]:
    validated = validate_answer(
        parse_extract_actions(json.dumps({"actions": list(actions)})), CALL, Settings()
    )
    return [(p.content, p.tier, p.agent_id) for p in validated.proposals], [
        r.reason for r in validated.rejected
    ]


def act(content: str, *messages: str, **fields) -> dict:
    quotes = {h: CALL.messages[h].content for h in messages}
    return {"action": "create", "content": content, "tier": "core", "kind": "preference",
            "evidence": [{"message": h, "quote": q} for h, q in quotes.items()], **fields}  # fmt: skip


def test_an_agents_signal_takes_the_agent_of_its_messages_and_is_contextual():
    assert judged(act("Trains for the marathon", "m1", scope="agent")) == (
        [("Trains for the marathon", "contextual", "coach")],
        [],
    )
    assert judged(act("Lives in Lisbon", "m3")) == ([("Lives in Lisbon", "core", None)], [])  # the profile
    assert judged(act("Trains for the marathon", "m1")) == ([("Trains for the marathon", "core", None)], [])


@pytest.mark.parametrize(
    "action",
    [
        act("Lives in Lisbon", "m3", scope="agent"),  # a conversation without an agent
        act("Runs and cooks", "m1", "m2", scope="agent"),  # two agents' messages
        {**act("Trains for a marathon", "m1"), "action": "update", "signal": "s1", "scope": "profile"},
        {**act("Lives in Lisbon", "m3"), "action": "update", "signal": "s2", "scope": "agent"},
        {**act("Trains with the chef", "m2"), "action": "update", "signal": "s1"},  # another agent's message
    ],
)
def test_a_scope_the_messages_do_not_support_is_rejected(action):
    proposals, reasons = judged(action)
    assert proposals == [] and len(reasons) == 1 and "scope" in reasons[0]


def test_an_update_that_does_not_say_its_scope_keeps_its_signals():
    update = {**act("Trains for the Porto marathon", "m1"), "action": "update", "signal": "s1"}
    assert judged(update) == ([("Trains for the Porto marathon", "contextual", "coach")], [])
