"""`load`: a bad file is refused whole with the path of its first bad field; re-loading changes nothing."""

from __future__ import annotations

import copy
import json

import pytest

from agent_signals.errors import LoadError
from agent_signals.load import parse, read, store
from tests.builders import conversation, load_conversations

pytestmark = pytest.mark.db

GOOD = {
    "dataset": "ignored top-level keys are fine",
    "conversations": [
        conversation("c1", "u1", [("user", "I'm a pilot."), ("assistant", "Nice.")]),
        conversation("c2", "u2", [("user", "hello")], extract=False),
    ],
}


def counts(conn) -> tuple[int, int]:
    return (
        conn.execute("select count(*) from app.conversations").fetchone()[0],
        conn.execute("select count(*) from app.messages").fetchone()[0],
    )


def broken(path: str, value) -> dict:
    data = copy.deepcopy(GOOD)
    target = data
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is DELETE:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return data


DELETE = object()
BAD_FILES = {
    "missing user_id": (broken("conversations.1.user_id", DELETE), "conversations[1].user_id"),
    "missing extract": (broken("conversations.0.extract", DELETE), "conversations[0].extract"),
    "unknown role": (broken("conversations.0.messages.1.role", "bot"), "conversations[0].messages[1].role"),
    "bad timestamp": (
        broken("conversations.0.messages.0.created_at", "yesterday"),
        "conversations[0].messages[0].created_at",
    ),
    "timestamp without zone": (
        broken("conversations.0.messages.0.created_at", "2026-01-01T10:00:00"),
        "conversations[0].messages[0].created_at",
    ),
    "numeric timestamp": (
        broken("conversations.0.messages.0.created_at", 1767261600),
        "conversations[0].messages[0].created_at",
    ),
    "content not text": (
        broken("conversations.0.messages.0.content", 42),
        "conversations[0].messages[0].content",
    ),
    "extract not boolean": (broken("conversations.0.extract", "yes"), "conversations[0].extract"),
    "no conversations": ({"users": []}, "conversations"),
    "duplicate conversation": (
        {"conversations": [GOOD["conversations"][0], GOOD["conversations"][0]]},
        "conversations[1].conversation_id",
    ),
    "duplicate message id": (
        broken(
            "conversations.0.messages",
            [
                {"message_id": "x", "role": "user", "content": "a", "created_at": "2026-01-01T10:00:00Z"},
                {"message_id": "x", "role": "user", "content": "b", "created_at": "2026-01-01T10:01:00Z"},
            ],
        ),
        "conversations[0].messages[1].message_id",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_refused_whole_with_the_path_of_the_first_bad_field(conn, settings, case):
    data, path = BAD_FILES[case]
    with pytest.raises(LoadError) as error:
        store(conn, settings, parse(json.dumps(data), "bad.json"))
    assert f"bad.json: {path}" in str(error.value)
    assert counts(conn) == (0, 0)


def test_invalid_json_names_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"conversations": [\n  {"conversation_id": "c1",,}\n]}')
    with pytest.raises(LoadError, match=r"broken.json: invalid JSON at line 2, column 28"):
        read(path)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(LoadError, match=r"cannot read .*nope\.json"):
        read(tmp_path / "nope.json")


def test_reloading_changes_nothing_and_a_grown_conversation_is_appended(conn, settings):
    first = store(conn, settings, parse(json.dumps(GOOD)))
    assert (first.conversations_new, first.messages_new) == (2, 3)
    snapshot = conn.execute("select * from app.messages order by conversation_id, message_id").fetchall()
    again = store(conn, settings, parse(json.dumps(GOOD)))
    assert (again.conversations_new, again.conversations_changed, again.messages_new) == (0, 0, 0)
    assert (
        conn.execute("select * from app.messages order by conversation_id, message_id").fetchall() == snapshot
    )

    grown = copy.deepcopy(GOOD)
    grown["conversations"][0]["messages"].append(
        {"role": "user", "content": "I also own the billing service.", "created_at": "2026-03-02T09:05:00Z"}
    )
    grown["conversations"][1]["extract"] = True
    result = store(conn, settings, parse(json.dumps(grown)))
    assert (result.messages_new, result.conversations_changed) == (1, 1)
    assert counts(conn) == (2, 4)
    assert conn.execute(
        "select flagged, flagged_at is not null from source.conversations where conversation_id = 'c2'"
    ).fetchone() == (True, True)


def test_a_conversation_cannot_change_owner(conn, settings):
    load_conversations(conn, settings, conversation("c1", "u1", [("user", "hi")]))
    with pytest.raises(LoadError, match="belongs to user 'u1' in the database but to 'u9'"):
        load_conversations(
            conn,
            settings,
            conversation("c1", "u9", [("user", "hi")]),
            conversation("c3", "u3", [("user", "hi")]),
        )
    assert counts(conn) == (1, 1)


def test_the_shared_dataset_shape_loads(conn, settings):
    data = {
        "users": [{"user_id": "x"}],
        "conversations": [
            {
                "conversation_id": "msc_1",
                "user_id": "x",
                "extract": True,
                "meta": {"session": 1},
                "messages": [{"role": "user", "content": "Hello", "created_at": "2021-05-04T20:30:00Z"}],
            }
        ],
    }
    result = store(conn, settings, parse(json.dumps(data)))
    assert result.messages_new == 1
    assert conn.execute("select message_id from app.messages").fetchone() == ("00001",)
