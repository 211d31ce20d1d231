"""`load` of NDJSON and Parquet (one row per message, streamed in batches): the same rows as the equivalent
JSON file, re-loading changes nothing, every bad input is one line naming file, row and column with nothing
loaded, a file of many batches is loaded whole, and the CLI picks the format by extension or --format."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from agent_signals.errors import LoadError
from agent_signals.store.loading import load_rows
from agent_signals.store.loading.load import default_message_id, parse, store
from agent_signals.store.loading.load_rows import store_file
from tests.builders import conversation, load_conversations
from tests.test_cli import agent_signals

pytestmark = pytest.mark.db
ROOT = Path(__file__).resolve().parents[1]

CONVERSATIONS = [
    conversation("c1", "u1", [("user", "I'm a pilot."), ("assistant", "Nice."), ("user", 'é 😀 "q", x\ny')]),
    conversation("c2", "u2", [("user", "hello"), ("tool", "")], extract=False),
    conversation("c3", "u1", [("system", "be brief"), ("user", "I ski.")]),
]
CONVERSATIONS[2]["channel"] = None


def rows_of(conversations: list[dict]) -> list[dict]:
    """The flat rows of JSON-shaped conversations (a message's id: its position, as the JSON format gives)."""
    return [
        {
            "conversation_id": c["conversation_id"],
            "user_id": c["user_id"],
            "channel": c["channel"],
            "extract": c["extract"],
            "message_id": m.get("message_id") or default_message_id(j),
            "role": m["role"],
            "content": m["content"],
            "created_at": m["created_at"],
        }
        for c in conversations
        for j, m in enumerate(c["messages"])
    ]


def ndjson(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def parquet(path: Path, rows: list[dict], **columns: pl.Series) -> Path:
    frame = pl.DataFrame(
        [{**row, "created_at": datetime.fromisoformat(row["created_at"])} for row in rows],
        schema_overrides={"channel": pl.String},
    )
    frame.with_columns(**columns).write_parquet(path)
    return path


WRITERS = {"ndjson": ndjson, "parquet": parquet}


def counts(conn) -> tuple[int, int]:
    return (
        conn.execute("select count(*) from app.conversations").fetchone()[0],
        conn.execute("select count(*) from app.messages").fetchone()[0],
    )


def snapshot(conn) -> tuple[list, list]:
    return (
        conn.execute(
            "select conversation_id, user_id, channel, flagged from source.conversations order by 1"
        ).fetchall(),
        conn.execute("select * from source.messages order by conversation_id, message_id").fetchall(),
    )


@pytest.mark.parametrize("fmt", ["ndjson", "parquet"])
def test_a_flat_file_loads_the_rows_of_the_equivalent_json_file_and_reloading_changes_nothing(
    conn, settings, tmp_path, fmt
):
    path = WRITERS[fmt](tmp_path / f"c.{fmt}", rows_of(CONVERSATIONS))
    first = store_file(conn, path, fmt)
    assert (first.conversations_new, first.messages_new) == (3, 7)
    loaded = snapshot(conn)
    assert len(loaded[1]) == 7

    again = store_file(conn, path, fmt)
    assert (again.conversations_new, again.conversations_changed, again.messages_new) == (0, 0, 0)
    # the JSON file finds every conversation and message as it would have stored them: nothing differs
    as_json = store(conn, parse(json.dumps({"conversations": CONVERSATIONS})))
    assert (as_json.conversations_new, as_json.conversations_changed, as_json.messages_new) == (0, 0, 0)
    assert as_json.messages_unchanged == 7
    assert snapshot(conn) == loaded


def test_a_file_of_many_batches_is_loaded_whole(conn, settings, tmp_path, monkeypatch):
    monkeypatch.setattr(load_rows, "BATCH_ROWS", 3)
    many = [
        conversation(f"c{i}", f"u{i % 4}", [("user", f"m{j}") for j in range(i % 5 + 1)]) for i in range(9)
    ]
    rows = rows_of(many)
    for fmt, write in WRITERS.items():
        sizes = [batch.height for batch in load_rows.batches(write(tmp_path / f"m.{fmt}", rows), fmt)]
        assert max(sizes) <= 3 and sum(sizes) == len(rows)
    result = store_file(conn, tmp_path / "m.ndjson", "ndjson")
    assert (result.conversations_new, result.messages_new) == (9, len(rows))
    again = store_file(conn, tmp_path / "m.parquet", "parquet")
    assert (again.messages_new, again.messages_unchanged) == (0, len(rows))


def edited(index: int, **changes) -> list[dict]:
    rows = rows_of(CONVERSATIONS)
    rows[index] = {**rows[index], **changes}
    return rows


NOTHING = "hint: nothing was loaded"
UNSTORABLE = (
    "hint: nothing was loaded; PostgreSQL text cannot hold NUL or unpaired surrogates: remove the character "
    "or replace it (e.g. with U+FFFD)"
)
# case: (rows, the message after "FILE: ", the hint); rows 1-3 are c1's, 4-5 c2's, 6-7 c3's
BAD_NDJSON = {
    "missing column": ([{k: v for k, v in r.items() if k != "user_id"} for r in rows_of(CONVERSATIONS)],
                       "row 1: user_id: missing (null)", NOTHING),
    "null content": (edited(4, content=None), "row 5: content: missing (null)", NOTHING),
    "extract not boolean": (edited(2, extract="yes"), "row 3: extract: not a boolean (true or false)", NOTHING),
    "bad role": (edited(1, role="bot"), "row 2: role: not one of user, assistant, tool, system", NOTHING),
    "empty message id": (edited(3, message_id=""), "row 4: message_id: empty", NOTHING),
    "empty conversation id": (edited(0, conversation_id=""), "row 1: conversation_id: empty", NOTHING),
    "timestamp without zone": (edited(5, created_at="2026-01-01T10:00:00"),
                               "row 6: created_at: has no timezone offset (add Z or +HH:MM)", NOTHING),
    "bad timestamp": (edited(5, created_at="yesterday"),
                      "row 6: created_at: not an ISO 8601 timestamp with an offset", NOTHING),
    "NUL": (edited(6, content="I am\x00 a pilot"),
            "row 7: content: contains a NUL character or an unpaired surrogate at position 4", UNSTORABLE),
    "unpaired surrogate": (edited(1, user_id="u\ud8001"),
                           "row 2: user_id: contains a NUL character or an unpaired surrogate at position 1",
                           UNSTORABLE),
    "owner differs": (edited(2, user_id="u9"),
                      "row 3: user_id: differs from row 1 of the same conversation 'c1' (a conversation's "
                      "user_id, channel, agent_id and extract are the same on all its rows)", NOTHING),
    "extract differs": (edited(4, extract=True),
                        "row 5: extract: differs from row 4 of the same conversation 'c2' (a conversation's "
                        "user_id, channel, agent_id and extract are the same on all its rows)", NOTHING),
    "channel differs": (edited(6, channel="web"),
                        "row 7: channel: differs from row 6 of the same conversation 'c3' (a conversation's "
                        "user_id, channel, agent_id and extract are the same on all its rows)", NOTHING),
    "duplicate message": (edited(6, conversation_id="c1", user_id="u1", channel="web", message_id="00002"),
                          "row 7: message_id: '00002' of conversation 'c1' appears twice (first at row 2)",
                          NOTHING),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_NDJSON))
def test_a_bad_ndjson_row_is_one_line_naming_row_and_column_and_nothing_is_loaded(
    conn, settings, tmp_path, monkeypatch, case
):
    monkeypatch.setattr(load_rows, "BATCH_ROWS", 2)  # the checks across rows see every batch
    load_conversations(conn, settings, conversation("c0", "u0", [("user", "stored")]))
    rows, message, hint = BAD_NDJSON[case]
    path = tmp_path / "bad.ndjson"
    path.write_text("".join(json.dumps(row, ensure_ascii=True) + "\n" for row in rows))
    result = agent_signals("load", str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"error: {path}: {message}", hint]
    assert counts(conn) == (1, 1)


BAD_PARQUET = {
    "missing column": ({"drop": "role"}, "column role: missing"),
    "wrong-typed column": ({"extract": pl.Series([1] * 7)}, "column extract: Int64 where a boolean is expected"),
    "timestamp without zone": (
        {"created_at": pl.Series([datetime(2026, 1, 1)] * 7)},
        "column created_at: a timestamp without a time zone",
    ),
    "null id": ({"message_id": pl.Series(["a", "b", None, "d", "e", "f", "g"])}, "row 3: message_id: missing (null)"),
    "bad role": ({"role": pl.Series(["user"] * 6 + ["robot"])}, "row 7: role: not one of user, assistant, tool, system"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_PARQUET))
def test_a_bad_parquet_file_is_one_line_and_nothing_is_loaded(conn, settings, tmp_path, case):
    columns, message = BAD_PARQUET[case]
    drop = columns.pop("drop", None)
    path = parquet(tmp_path / "bad.parquet", rows_of(CONVERSATIONS), **columns)
    if drop:
        pl.read_parquet(path).drop(drop).write_parquet(path)
    with pytest.raises(LoadError) as error:
        store_file(conn, path, "parquet")
    assert error.value.message == f"{path}: {message}"
    assert error.value.hint.startswith("nothing was loaded")
    assert counts(conn) == (0, 0)


def test_invalid_ndjson_is_one_line(conn, settings, tmp_path):
    path = tmp_path / "broken.ndjson"
    path.write_text(json.dumps(rows_of(CONVERSATIONS)[0]) + "\n{not json\n")
    with pytest.raises(LoadError, match=r"broken.ndjson: not valid NDJSON: "):
        store_file(conn, path, "ndjson")
    assert counts(conn) == (0, 0)


def test_the_cli_picks_the_format_by_extension_and_by_option(conn, tmp_path):
    rows = rows_of(CONVERSATIONS)
    by_extension = agent_signals("load", str(ndjson(tmp_path / "a.jsonl", rows)))
    assert by_extension.returncode == 0, by_extension.stderr
    assert "3 new conversation(s), 0 changed, 7 new message(s), 0 already loaded" in by_extension.stdout
    exported = parquet(tmp_path / "export.bin", rows)
    by_option = agent_signals("load", "--format", "parquet", str(exported))
    assert by_option.returncode == 0, by_option.stderr
    assert "0 new message(s), 7 already loaded" in by_option.stdout
    unknown = agent_signals("load", str(exported))
    assert unknown.returncode == 1
    assert unknown.stderr.splitlines() == [
        f"error: {exported}: cannot tell the format from the extension '.bin'",
        "hint: name the file .json, .ndjson, .jsonl or .parquet, or pass --format json|ndjson|parquet",
    ]
    as_json = tmp_path / "c.data"
    as_json.write_text(json.dumps({"conversations": CONVERSATIONS}))
    json_option = agent_signals("load", "--format", "json", str(as_json))
    assert json_option.returncode == 0 and "7 already loaded" in json_option.stdout, json_option.stderr


@pytest.mark.parametrize("fmt", ["json", "ndjson", "parquet"])
def test_a_conversations_agent_is_loaded_from_every_format(conn, settings, tmp_path, fmt):
    with_agents = [
        conversation("a1", "u1", [("user", "Let's plan the trip.")], agent_id="planner"),
        conversation("a2", "u1", [("user", "I'm a pilot.")]),
    ]
    if fmt == "json":
        load_conversations(conn, settings, *with_agents)
    else:
        rows = [{**row, "agent_id": c.get("agent_id")} for c in with_agents for row in rows_of([c])]
        store_file(conn, WRITERS[fmt](tmp_path / f"a.{fmt}", rows), fmt)
    stored = conn.execute("select conversation_id, agent_id from source.conversations order by 1").fetchall()
    assert stored == [("a1", "planner"), ("a2", None)]


def test_an_agent_that_differs_within_a_conversation_is_one_line_and_nothing_is_loaded(conn, tmp_path):
    rows = rows_of([conversation("a1", "u1", [("user", "one"), ("user", "two")])])
    rows[0]["agent_id"], rows[1]["agent_id"] = "planner", "coach"
    path = ndjson(tmp_path / "agents.ndjson", rows)
    result = agent_signals("load", str(path))
    assert result.returncode == 1 and "agent_id" in result.stderr.splitlines()[0]
    assert counts(conn) == (0, 0)
