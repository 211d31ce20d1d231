"""Per-user summaries (prompts/summarize/v1): rebuilt only for users whose active signal set changed since
their last summary, which the fingerprint (signals.fingerprint) decides. No change, no model call.

The model's paragraph is screened like a candidate (screen.screen_text): one that fails (an instruction, a
link, a secret the model was talked into writing) is replaced by a paragraph written from the user's
screened signals themselves ("The user works as ..."), with no model or prompt version recorded. Readers of
context.user_context keep a summary that says only what the signals say, and the user does not cost a
model call every run."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from uuid import UUID

import psycopg

from agent_signals.config import Settings
from agent_signals.core.answers import parse_summary_answer
from agent_signals.core.prompts import SummaryLine, prompt_set
from agent_signals.core.screen import screen_text
from agent_signals.core.summary_text import summary_from_signals
from agent_signals.store import summaries
from agent_signals.store.summaries import Candidate

log = logging.getLogger(__name__)

# Renders nothing itself: given the user's lines, returns the raw answer of one model call.
Write = Callable[[list[SummaryLine]], Awaitable[str]]


async def rebuild(
    conn: psycopg.AsyncConnection, settings: Settings, candidate: Candidate, write: Write, run_id: UUID
) -> str:
    """Rebuild one user's summary; returns what happened: `summarized`, `summary_replaced` (the model's
    paragraph failed screening: written from the signals instead) or `summary_dropped` (no active signal).
    Raises ModelUnavailable or InvalidAnswer, leaving the previous summary in place."""
    lines = await summaries.signal_lines(conn, settings, candidate.user_id)
    if not lines:
        await summaries.delete(conn, settings, candidate.user_id)
        return "summary_dropped"
    summary = parse_summary_answer(await write(lines)).summary
    model, version, outcome = settings.model, prompt_set(settings, "summarize").version, "summarized"
    if reason := screen_text(summary):
        log.warning(
            "user %s: the model's summary %s; written from the signals instead", candidate.user_id, reason
        )
        summary, model, version, outcome = summary_from_signals(lines), None, None, "summary_replaced"
    await summaries.write(
        conn,
        settings,
        candidate,
        summary,
        signal_count=len(lines),
        model=model,
        prompt_version=version,
        run_id=run_id,
    )
    return outcome
