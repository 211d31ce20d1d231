"""Per-user summaries (prompts/summarize/v1): rebuilt only for users whose active signal set changed since
their last summary, which the fingerprint (signals.fingerprint) decides. No change, no model call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from uuid import UUID

import psycopg

from agent_signals.answers import parse_summary_answer
from agent_signals.config import Settings
from agent_signals.prompts import SummaryLine, prompt_set
from agent_signals.sqlfiles import query

# Renders nothing itself: given the user's lines, returns the raw answer of one model call.
Write = Callable[[list[SummaryLine]], Awaitable[str]]


@dataclass(frozen=True)
class Candidate:
    user_id: str
    fingerprint: str


async def candidates(conn: psycopg.AsyncConnection, settings: Settings) -> list[Candidate]:
    """Every user whose stored summary no longer matches their active signals (the dirty users among
    them), whoever consumed the dirty marks."""
    cur = await conn.execute(query(settings, "summary_candidates"))
    return [Candidate(*row) for row in await cur.fetchall()]


async def rebuild(
    conn: psycopg.AsyncConnection, settings: Settings, candidate: Candidate, write: Write, run_id: UUID
) -> bool:
    """Rebuild one user's summary; returns False when the user has no active signal (summary dropped).
    Raises ModelUnavailable or InvalidAnswer, leaving the previous summary in place."""
    cur = await conn.execute(query(settings, "summary_signals"), {"user_id": candidate.user_id})
    lines = [SummaryLine(*row) for row in await cur.fetchall()]
    if not lines:
        await conn.execute(query(settings, "delete_summary"), {"user_id": candidate.user_id})
        return False
    answer = parse_summary_answer(await write(lines))
    await conn.execute(
        query(settings, "upsert_summary"),
        {
            "user_id": candidate.user_id,
            "summary": " ".join(answer.summary.split()),
            "fingerprint": candidate.fingerprint,
            "signal_count": len(lines),
            "model": settings.model,
            "prompt_version": prompt_set(settings, "summarize").version,
            "run_id": run_id,
        },
    )
    return True
