"""`agent-signals demo seed`: write the synthetic demo conversations, through the same path as `load`."""

from __future__ import annotations

from itertools import islice

import psycopg

from agent_signals import demo_data
from agent_signals.config import Settings
from agent_signals.load import ConversationIn, ConversationsFile, LoadResult, store

SEED_CHUNK_USERS = 2000


def seed(
    conn: psycopg.Connection, settings: Settings, *, users: int, seed: int = 7, messages_per_user: int = 10
) -> LoadResult:
    """Idempotent: seeding the same users again changes nothing. Memory stays flat (chunks of users)."""
    totals = [0, 0, 0, 0]
    conversations = (
        c.record for c in demo_data.generate(users, seed=seed, user_messages_per_user=messages_per_user)
    )
    while True:
        # each user has a few conversations: a chunk holds about SEED_CHUNK_USERS users
        chunk = list(islice(conversations, SEED_CHUNK_USERS * 3))
        if not chunk:
            break
        data = ConversationsFile(conversations=[ConversationIn.model_validate(r) for r in chunk])
        result = store(conn, settings, data)
        for i, value in enumerate(
            (
                result.conversations_new,
                result.conversations_changed,
                result.messages_new,
                result.messages_unchanged,
            )
        ):
            totals[i] += value
    return LoadResult(*totals)
