"""The per-user summaries in the database: which users' summary no longer matches their active signals
(the fingerprint, signals.fingerprint, decides), the signals a summary is written from, and the summary's
write or removal."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import psycopg

from agent_signals.core.prompting.prompts import SummaryLine
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class Candidate:
    """A user whose summary is rebuilt, with the fingerprint of the signal set it is to describe."""

    user_id: str
    fingerprint: str


async def candidates(conn: psycopg.AsyncConnection) -> list[Candidate]:
    """Every user whose stored summary no longer matches their active signals (the dirty users among
    them), whoever consumed the dirty marks."""
    cur = await conn.execute(query("summaries/summary_candidates"))
    return [Candidate(*row) for row in await cur.fetchall()]


async def signal_lines(conn: psycopg.AsyncConnection, user_id: str) -> list[SummaryLine]:
    """What the user's summary is written from: their own signals, their core, their strongest contextual."""
    cur = await conn.execute(query("summaries/summary_signals"), {"user_id": user_id})
    return [SummaryLine(*row) for row in await cur.fetchall()]


async def delete(conn: psycopg.AsyncConnection, user_id: str) -> None:
    """The user's summary removed (no active signal left to describe)."""
    await conn.execute(query("summaries/delete_summary"), {"user_id": user_id})


async def write(
    conn: psycopg.AsyncConnection,
    candidate: Candidate,
    summary: str,
    *,
    signal_count: int,
    model: str | None,
    prompt_version: str | None,
    run_id: UUID,
) -> None:
    """The user's summary stored with the fingerprint it describes; nothing is written when the user's set
    changed since the fingerprint was taken (rebuilt later), whitespace folded to single spaces."""
    await conn.execute(
        query("summaries/upsert_summary"),
        {
            "user_id": candidate.user_id,
            "summary": " ".join(summary.split()),
            "fingerprint": candidate.fingerprint,
            "signal_count": signal_count,
            "model": model,
            "prompt_version": prompt_version,
            "run_id": run_id,
        },
    )
