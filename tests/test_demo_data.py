"""The demo generator: deterministic, streaming, loadable, and labelled for scoring."""

from collections import Counter

import pytest

from agent_signals.cli.demo import synthetic
from agent_signals.store.loading.load import ConversationsFile

pytestmark = pytest.mark.unit


def _records(users: int, **kwargs) -> list[dict]:
    return [c.record for c in synthetic.generate(users, **kwargs)]


def test_same_seed_same_data_and_users_do_not_depend_on_how_many_are_generated():
    assert _records(20) == _records(20)
    assert _records(20)[:5] != _records(20, seed=8)[:5]
    small = _records(7)
    assert _records(30)[: len(small)] == small


def test_every_file_it_writes_is_accepted_by_the_loader():
    data = ConversationsFile.model_validate({"conversations": _records(50)})
    ids = [c.conversation_id for c in data.conversations]
    assert len(ids) == len(set(ids))


def test_each_user_has_exactly_the_asked_user_messages_and_a_flagged_conversation():
    by_user: dict[str, list[dict]] = {}
    for record in _records(40, user_messages_per_user=7):
        by_user.setdefault(record["user_id"], []).append(record)
    assert sorted(by_user) == [synthetic.user_id(i) for i in range(40)]
    for conversations in by_user.values():
        user_messages = [m for c in conversations for m in c["messages"] if m["role"] == "user"]
        assert len(user_messages) == 7
        assert conversations[0]["extract"] and any(m["role"] == "user" for m in conversations[0]["messages"])


def test_labels_name_every_user_message_in_order():
    for conv in synthetic.generate(30):
        user_ids = [m["message_id"] for m in conv.record["messages"] if m["role"] == "user"]
        assert [label.message_id for label in conv.labels] == user_ids
        for label in conv.labels:
            if label.category == "durable":
                assert label.kind in synthetic.KINDS
                assert label.tier == ("core" if label.kind in synthetic.CORE_KINDS else "contextual")
            else:
                assert label.category in synthetic.NEGATIVE_CATEGORIES and label.kind is None


def test_the_mix_a_restrictive_extractor_must_face():
    conversations = list(synthetic.generate(300))
    categories = Counter(label.category for c in conversations for label in c.labels)
    assert set(categories) == {"durable", *synthetic.NEGATIVE_CATEGORIES}
    durable_share = categories["durable"] / sum(categories.values())
    assert 0.25 <= durable_share <= 0.45
    kinds = Counter(label.kind for c in conversations for label in c.labels if label.kind)
    assert set(kinds) == set(synthetic.KINDS)
    roles = Counter(m["role"] for c in conversations for m in c.record["messages"])
    assert {"user", "assistant", "tool", "system"} <= set(roles)
    unflagged = sum(not c.record["extract"] for c in conversations) / len(conversations)
    assert 0.05 <= unflagged <= 0.25


def test_timestamps_are_utc_and_ordered_within_a_conversation():
    for record in _records(25):
        stamps = [m["created_at"] for m in record["messages"]]
        assert all(s.endswith("Z") for s in stamps) and stamps == sorted(stamps)
