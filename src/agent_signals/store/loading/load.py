"""`agent-signals load FILE.json`: import conversations, all or nothing, idempotently (the flat formats,
NDJSON and Parquet, are streamed by store/loading/load_rows.py into the same transaction: `write`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import psycopg
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_signals.errors import LoadError
from agent_signals.store.sqlfiles import query

Role = Literal["user", "assistant", "tool", "system"]

# Characters PostgreSQL text cannot hold: NUL, and the surrogates that JSON can spell ("\ud800") but that
# are not Unicode scalar values, so have no UTF-8 form (a paired "\ud83d\ude00" decodes to one character).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
UNSTORABLE_HINT = (
    "nothing was loaded; PostgreSQL text cannot hold NUL or unpaired surrogates: remove the character or "
    "replace it (e.g. with U+FFFD)"
)


def parse_timestamp(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{value!r} has no timezone offset (add Z or +HH:MM)")
    try:  # the same instant in UTC: PostgreSQL refuses offsets past 15:59 that ISO 8601 allows
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{value!r} is out of range") from None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    message_id: str | None = Field(default=None, min_length=1, max_length=200)
    role: Role
    content: str
    created_at: datetime

    _ts = field_validator("created_at", mode="before")(lambda cls, v: parse_timestamp(v))


class ConversationIn(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    conversation_id: str = Field(min_length=1, max_length=200)
    user_id: str = Field(min_length=1, max_length=200)
    channel: str | None = None
    agent_id: str | None = Field(default=None, min_length=1, max_length=200)  # null: the product's one agent
    extract: bool
    messages: list[MessageIn]


class ConversationsFile(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    conversations: list[ConversationIn]


@dataclass(frozen=True)
class LoadResult:
    conversations_new: int
    conversations_changed: int
    messages_new: int
    messages_unchanged: int


def _path(loc: Iterable[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse(text: str, source: str = "<input>") -> ConversationsFile:
    """Validate a whole file; the first bad field is named by its path, e.g. conversations[3].messages[0].role."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(raw, dict):
        raise LoadError(f"{source}: the top level must be an object with a 'conversations' list")
    try:
        parsed = ConversationsFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise LoadError(
            f"{source}: {_path(first['loc'])}: {first['msg']}", hint="nothing was loaded"
        ) from None
    seen: set[str] = set()
    for i, conv in enumerate(parsed.conversations):
        if conv.conversation_id in seen:
            raise LoadError(
                f"{source}: conversations[{i}].conversation_id: {conv.conversation_id!r} appears twice",
                hint="nothing was loaded",
            )
        seen.add(conv.conversation_id)
        for field in ("conversation_id", "user_id", "channel", "agent_id"):
            _check_storable(
                f"{source}: conversations[{i}].{field}", getattr(conv, field), conv.conversation_id
            )
        ids: set[str] = set()
        for j, msg in enumerate(conv.messages):
            message_id = msg.message_id or default_message_id(j)
            if message_id in ids:
                raise LoadError(
                    f"{source}: conversations[{i}].messages[{j}].message_id: {message_id!r} appears twice "
                    "in this conversation",
                    hint="nothing was loaded",
                )
            ids.add(message_id)
            for field in ("message_id", "content"):
                where = f"{source}: conversations[{i}].messages[{j}].{field}"
                _check_storable(where, getattr(msg, field), conv.conversation_id, message_id)
    return parsed


def _check_storable(
    where: str, text: str | None, conversation_id: str, message_id: str | None = None
) -> None:
    """Refuse text PostgreSQL would refuse, naming the field, the conversation and the message."""
    found = UNSTORABLE.search(text or "")
    if found is None:
        return
    char = "a NUL character" if found[0] == "\x00" else f"an unpaired surrogate U+{ord(found[0]):04X}"
    of = (
        f"message {message_id!r} of conversation {conversation_id!r}"
        if message_id
        else (f"conversation {conversation_id!r}")
    )
    raise LoadError(f"{where} ({of}): contains {char} at position {found.start()}", hint=UNSTORABLE_HINT)


def default_message_id(index: int) -> str:
    """Id of a message given without one: its 1-based position, stable while a conversation only grows."""
    return f"{index + 1:05d}"


def read(path: Path) -> ConversationsFile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LoadError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise LoadError(f"{path}: not UTF-8 text") from None
    return parse(text, str(path))


def store(conn: psycopg.Connection, data: ConversationsFile) -> LoadResult:
    """Write a validated file in one transaction: new conversations, changed flags, appended messages.
    A conversation changing owner or a stored message changing is refused, and nothing is written."""
    return write(conn, lambda: _copy_file(conn, data))


def write(conn: psycopg.Connection, stage: Callable[[], None]) -> LoadResult:
    """The one transaction of every load: empty staging tables (load_conversations, load_messages), `stage`
    fills them (from a parsed JSON file, or streamed from a flat file: store/loading/load_rows.py), then the
    owner-clash and changed-message checks, the upsert of conversations and the insert of new messages.
    Any LoadError raised by `stage` or the checks rolls everything back."""
    try:
        with conn.transaction():
            conn.execute(query("load/load_staging_tables"))
            stage()
            conn.execute(query("load/load_analyze_staging"))
            return _apply(conn)
    except psycopg.DataError as exc:  # text that validation let through and this server still refuses
        raise LoadError(
            f"PostgreSQL refused the file: {str(exc).splitlines()[0]}", hint="nothing was loaded"
        ) from None


def _copy_file(conn: psycopg.Connection, data: ConversationsFile) -> None:
    with conn.cursor().copy(
        "copy load_conversations (conversation_id, user_id, channel, agent_id, extract) from stdin"
    ) as copy:
        for conv in data.conversations:
            copy.write_row((conv.conversation_id, conv.user_id, conv.channel, conv.agent_id, conv.extract))
    with conn.cursor().copy(
        "copy load_messages (conversation_id, message_id, role, content, created_at) from stdin"
    ) as copy:
        for conv in data.conversations:
            for j, msg in enumerate(conv.messages):
                copy.write_row(
                    (
                        conv.conversation_id,
                        msg.message_id or default_message_id(j),
                        msg.role,
                        msg.content,
                        msg.created_at,
                    )
                )


def _apply(conn: psycopg.Connection) -> LoadResult:
    clash = conn.execute(query("load/load_owner_clash")).fetchone()
    if clash:
        raise LoadError(
            f"conversation {clash[0]!r} belongs to user {clash[1]!r} in the database but to {clash[2]!r} "
            "in the file",
            hint="nothing was loaded; a conversation cannot change owner",
        )
    differs = conn.execute(query("load/load_changed_messages")).fetchone()
    if differs:
        conversation_id, message_id, fields, count = differs
        more = f" ({count} messages differ)" if count > 1 else ""
        raise LoadError(
            f"message {message_id!r} of conversation {conversation_id!r} differs from the stored one "
            f"({', '.join(fields)}){more}; loaded messages are immutable",
            hint="nothing was loaded; give a changed message a new message_id (a message without one is "
            "numbered by its position: append new messages at the end of a conversation)",
        )
    new, changed = conn.execute(query("load/load_upsert_conversations")).fetchone()
    messages_new = conn.execute(query("load/load_insert_messages")).rowcount
    total = conn.execute("select count(*) from load_messages").fetchone()[0]
    return LoadResult(new or 0, changed or 0, messages_new, total - messages_new)
