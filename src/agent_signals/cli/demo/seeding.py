"""`agent-signals demo seed`: write the synthetic demo conversations, through the same path as `load`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from itertools import islice

import psycopg

from agent_signals.cli.demo import synthetic
from agent_signals.store import evaluation
from agent_signals.store.loading.load import ConversationIn, ConversationsFile, LoadResult, store

SEED_CHUNK_USERS = 2000


def demo_start(today: date | None = None) -> datetime:
    """The demo's conversations span the 35 days before today, so decay (real clock) treats them as
    recent. Same day, same data; seeding again on another day adds nothing (ids are stable)."""
    today = today or datetime.now(UTC).date()
    return datetime.combine(today - timedelta(days=35), time(9), tzinfo=UTC)


def seed(
    conn: psycopg.Connection,
    *,
    users: int,
    seed: int = 7,
    messages_per_user: int = 10,
    start: datetime | None = None,
) -> LoadResult:
    """Idempotent: seeding the same users again changes nothing. Memory stays flat (chunks of users)."""
    totals = [0, 0, 0, 0]
    conversations = (
        c.record
        for c in synthetic.generate(
            users, seed=seed, user_messages_per_user=messages_per_user, start=start or demo_start()
        )
    )
    while True:
        # each user has a few conversations: a chunk holds about SEED_CHUNK_USERS users
        chunk = list(islice(conversations, SEED_CHUNK_USERS * 3))
        if not chunk:
            break
        data = ConversationsFile(conversations=[ConversationIn.model_validate(r) for r in chunk])
        result = store(conn, data)
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


def seed_showcase(conn: psycopg.Connection, start: datetime | None = None) -> LoadResult:
    """The showcase user's conversations (synthetic.SHOWCASE), idempotently."""
    records = [c.record for c in synthetic.showcase(start or demo_start())]
    return store(conn, ConversationsFile(conversations=[ConversationIn.model_validate(r) for r in records]))


@dataclass(frozen=True)
class DemoScore:
    signals: int
    correct: int  # signals citing at least one message planted as a durable self-statement
    planted: int  # planted durable statements in flagged conversations
    found: int  # of those, cited by at least one signal
    wrong_by_category: dict[str, int]  # signals citing no durable message, by the category of what they cite

    @property
    def precision(self) -> float:
        return self.correct / self.signals if self.signals else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 1.0


def score(conn: psycopg.Connection, *, users: int, seed: int = 7, messages_per_user: int = 10) -> DemoScore:
    """Message-level precision and recall of the stored signals against the demo's planted labels."""
    category: dict[tuple[str, str], str] = {}
    for conv in synthetic.generate(users, seed=seed, user_messages_per_user=messages_per_user):
        if conv.record["extract"]:
            cid = conv.record["conversation_id"]
            category.update(((cid, label.message_id), label.category) for label in conv.labels)
    durable = {key for key, value in category.items() if value == "durable"}
    cited: dict[object, set[tuple[str, str]]] = {}
    for signal_id, _user, cid, mid in evaluation.demo_evidence(conn):
        cited.setdefault(signal_id, set()).add((cid, mid))
    wrong = Counter(
        category.get(min(messages), "unlabelled") for messages in cited.values() if not messages & durable
    )
    found = durable & set().union(*cited.values()) if cited else set()
    return DemoScore(len(cited), len(cited) - wrong.total(), len(durable), len(found), dict(wrong))
