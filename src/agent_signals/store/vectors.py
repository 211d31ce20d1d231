"""Embeddings as pgvector reads them: the text form every statement that stores or compares a vector
passes, cast with ::vector in SQL (no adapter registration on pooled connections)."""

from __future__ import annotations


def vector_text(vector: tuple[float, ...] | list[float] | None) -> str | None:
    """pgvector's text form of `vector` (None stays None)."""
    return None if vector is None else "[" + ",".join(f"{v:.7g}" for v in vector) + "]"
