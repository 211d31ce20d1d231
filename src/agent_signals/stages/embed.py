"""Embedding the signals that have none yet (those added by hand through the SQL functions), so that
near-duplicate checks and search see them (the vectors are stored through store/embeddings.py)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from agent_signals.adapters import llm
from agent_signals.config import Settings
from agent_signals.store import embeddings

BATCH = 256  # texts per embedding call


@dataclass
class EmbedUsage:
    signals: int = 0
    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


async def embed_missing(
    conn: psycopg.AsyncConnection, settings: Settings, user_id: str | None = None
) -> EmbedUsage:
    """Embed signals that have no embedding (those added by hand through the SQL functions), so
    near-duplicate checks and search see them. One embedding call per batch of BATCH signals."""
    usage = EmbedUsage()
    while True:
        rows = await embeddings.missing(conn, user_id, BATCH)
        if not rows:
            return usage
        result = await llm.embed([content for _id, content in rows], settings)
        usage.calls += 1
        usage.tokens += result.prompt_tokens
        usage.cost_usd += result.cost_usd
        await embeddings.store(
            conn,
            [(signal_id, vector) for (signal_id, _c), vector in zip(rows, result.vectors, strict=True)],
        )
        usage.signals += len(rows)
