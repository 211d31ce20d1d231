"""`load`: a bad file is refused whole with the path of its first bad field; re-loading changes nothing."""

from __future__ import annotations

import copy
import json

import pytest

from agent_signals.errors import LoadError
from agent_signals.store.loading.load import parse, read, store
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
        store(conn, parse(json.dumps(data), "bad.json"))
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
    first = store(conn, parse(json.dumps(GOOD)))
    assert (first.conversations_new, first.messages_new) == (2, 3)
    snapshot = conn.execute("select * from app.messages order by conversation_id, message_id").fetchall()
    again = store(conn, parse(json.dumps(GOOD)))
    assert (again.conversations_new, again.conversations_changed, again.messages_new) == (0, 0, 0)
    assert (
        conn.execute("select * from app.messages order by conversation_id, message_id").fetchall() == snapshot
    )

    grown = copy.deepcopy(GOOD)
    grown["conversations"][0]["messages"].append(
        {"role": "user", "content": "I also own the billing service.", "created_at": "2026-03-02T09:05:00Z"}
    )
    grown["conversations"][1]["extract"] = True
    result = store(conn, parse(json.dumps(grown)))
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
    result = store(conn, parse(json.dumps(data)))
    assert result.messages_new == 1
    assert conn.execute("select message_id from app.messages").fetchone() == ("00001",)


def cli_load(tmp_path, name: str, *conversations: dict):
    """`agent-signals load` of a file holding `conversations` (JSON escapes non-ASCII, e.g. "\\ud800")."""
    from tests.test_cli import agent_signals

    path = tmp_path / name
    path.write_text(json.dumps({"conversations": list(conversations)}))
    return path, agent_signals("load", str(path))


STORED = conversation("c0", "u0", [("user", "I'm a pilot.")])
UNSTORABLE_HINT = (
    "hint: nothing was loaded; PostgreSQL text cannot hold NUL or unpaired surrogates: remove the character "
    "or replace it (e.g. with U+FFFD)"
)


@pytest.mark.parametrize(
    ("field", "value", "where", "what"),
    [
        ("content", "I am\x00 a pilot", "messages[1].content (message '00002' of conversation 'c1')",
         "a NUL character at position 4"),
        ("content", "I am \ud800 a pilot", "messages[1].content (message '00002' of conversation 'c1')",
         "an unpaired surrogate U+D800 at position 5"),
        ("content", "\udfff", "messages[1].content (message '00002' of conversation 'c1')",
         "an unpaired surrogate U+DFFF at position 0"),
        ("message_id", "m\x00", "messages[1].message_id (message 'm\\x00' of conversation 'c1')",
         "a NUL character at position 1"),
        ("user_id", "u\x001", "user_id (conversation 'c1')", "a NUL character at position 1"),
        ("channel", "web\x00", "channel (conversation 'c1')", "a NUL character at position 3"),
    ],
)  # fmt: skip
def test_text_postgresql_refuses_is_one_line_naming_conversation_and_message(
    conn, settings, tmp_path, field, value, where, what
):
    load_conversations(conn, settings, STORED)
    bad = conversation("c1", "u1", [("user", "Hello."), ("user", "I am a pilot")])
    if field in ("user_id", "channel"):
        bad[field] = value
    else:
        bad["messages"][1][field] = value
    path, result = cli_load(tmp_path, "bad.json", conversation("c2", "u2", [("user", "hi")]), bad)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"error: {path}: conversations[1].{where}: contains {what}",
                                          UNSTORABLE_HINT]  # fmt: skip
    assert counts(conn) == (1, 1)


def test_a_changed_message_is_refused_with_nothing_written(conn, settings, tmp_path):
    load_conversations(conn, settings, conversation("c1", "u1", [("user", "I'm a pilot."), ("user", "Hi.")]))
    stored = conn.execute("select * from app.messages order by message_id").fetchall()
    changed = conversation("c1", "u1", [("user", "I'm a pilot!"), ("user", "Hi."), ("user", "I ski.")])
    _, result = cli_load(tmp_path, "changed.json", changed, conversation("c2", "u2", [("user", "hi")]))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "error: message '00001' of conversation 'c1' differs from the stored one (text); "
        "loaded messages are immutable",
        "hint: nothing was loaded; give a changed message a new message_id (a message without one is numbered "
        "by its position: append new messages at the end of a conversation)",
    ]
    assert conn.execute("select * from app.messages order by message_id").fetchall() == stored
    assert counts(conn) == (1, 2)

    inserted = conversation("c1", "u1", [("user", "I ski."), ("user", "I'm a pilot."), ("user", "Hi.")])
    _, result = cli_load(tmp_path, "inserted.json", inserted)  # a message put first shifts every position
    assert result.returncode == 1 and result.stderr.startswith(
        "error: message '00001' of conversation 'c1' differs from the stored one (text) "
        "(2 messages differ); loaded messages are immutable\n"
    )
    assert conn.execute("select * from app.messages order by message_id").fetchall() == stored


def test_a_timestamp_offset_postgresql_refuses_is_stored_as_the_same_instant(conn, settings):
    data = conversation("c1", "u1", [("user", "hi")])
    data["messages"][0]["created_at"] = "2026-01-01T20:00:00+20:00"
    load_conversations(conn, settings, data)
    assert conn.execute("select created_at = '2026-01-01T00:00:00Z' from app.messages").fetchone() == (True,)
