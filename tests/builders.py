"""Small builders of load-file data for tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg

from agent_signals.config import Settings
from agent_signals.load import parse, store

# Recent, so that decay (which runs against the real clock) keeps contextual signals active.
T0 = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=5)


def conversation(
    conversation_id: str,
    user_id: str,
    turns: list[tuple[str, str]],
    *,
    extract: bool = True,
    start: datetime = T0,
) -> dict:
    return {
        "conversation_id": conversation_id,
        "user_id": user_id,
        "channel": "web",
        "extract": extract,
        "messages": [
            {"role": role, "content": content, "created_at": (start + timedelta(minutes=i)).isoformat()}
            for i, (role, content) in enumerate(turns)
        ],
    }


def load_conversations(conn: psycopg.Connection, settings: Settings, *conversations: dict):
    import json

    return store(conn, settings, parse(json.dumps({"conversations": list(conversations)})))
