"""Embeddings of signals: embedding the signals that have none yet (pgvector's text form is store/vectors.py)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from agent_signals.adapters import llm
from agent_signals.config import Settings
from agent_signals.store.sqlfiles import query
from agent_signals.store.vectors import vector_text

BATCH = 256


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
        cur = await conn.execute(query(settings, "missing_embeddings"), {"user_id": user_id, "limit": BATCH})
        rows = await cur.fetchall()
        if not rows:
            return usage
        result = await llm.embed([content for _id, content in rows], settings)
        usage.calls += 1
        usage.tokens += result.prompt_tokens
        usage.cost_usd += result.cost_usd
        async with conn.transaction():
            for (signal_id, _content), vector in zip(rows, result.vectors, strict=True):
                await conn.execute(
                    query(settings, "set_embedding"),
                    {"signal_id": signal_id, "embedding": vector_text(vector)},
                )
        usage.signals += len(rows)
