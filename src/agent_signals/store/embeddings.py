"""Embeddings in the database: pgvector's text form of a vector, the signals that have none yet, and
storing the vectors computed for them."""

from __future__ import annotations

import psycopg

from agent_signals.store.sqlfiles import query


def vector_text(vector: tuple[float, ...] | list[float] | None) -> str | None:
    """pgvector's text form, cast with ::vector in SQL (no adapter registration on pooled connections)."""
    return None if vector is None else "[" + ",".join(map(_FLOAT, vector)) + "]"


_FLOAT = "{:.7g}".format  # a float32's seven digits; mapped, about half the time of an f-string per float


async def missing(conn: psycopg.AsyncConnection, user_id: str | None, limit: int) -> list[tuple[object, str]]:
    """Up to `limit` signals (of one user, or of all) with no embedding: (signal_id, content)."""
    cur = await conn.execute(query("embeddings/missing_embeddings"), {"user_id": user_id, "limit": limit})
    return await cur.fetchall()


async def store(conn: psycopg.AsyncConnection, vectors: list[tuple[object, list[float]]]) -> None:
    """Each (signal_id, vector), in one transaction."""
    async with conn.transaction():
        for signal_id, vector in vectors:
            await conn.execute(
                query("embeddings/set_embedding"), {"signal_id": signal_id, "embedding": vector_text(vector)}
            )
