"""When a failing user is tried again, and which of their messages are set aside after too many failed
attempts (pure functions; runs.record_failure applies them).

A failure counts against the user when the user's messages caused it: an answer that cannot be parsed, a
model error for that prompt (a refused or too long input, an empty body), a bug or a data error while
applying. A transient fault of the model or of the database (timeout, rate limit, connection, server
error) does not: the user is simply pending for the next run. A parsed answer whose actions were all
rejected is not a failure at all: its messages are consumed and each rejection is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_signals.config import Settings

TRANSIENT_MODEL_FAULTS = frozenset({"timeout", "rate_limit", "connection", "server_error"})

Read = tuple[str, str]  # (conversation_id, message_id) of a message a failing call read


def retry_delay_s(settings: Settings, attempt: int) -> float:
    """Seconds before the user is tried again after their `attempt`-th failure in a row (1-based)."""
    return min(
        settings.run.failing_user_backoff_s * 2 ** (attempt - 1), settings.run.failing_user_backoff_max_s
    )


def gives_up(settings: Settings, attempt: int) -> bool:
    """After this failed attempt the messages are set aside instead of tried again."""
    return attempt >= settings.run.failing_user_attempts


def offending(reads: Sequence[Sequence[Read]]) -> list[Read]:
    """The messages to set aside, given what each failed attempt read (oldest first): those every attempt
    read (a message that made each call fail is in each of them, while messages that arrived in between are
    not); when the attempts share none, those the last one read."""
    if not reads:
        return []
    common = set(reads[0]).intersection(*map(set, reads[1:]))
    return [r for r in dict.fromkeys(reads[-1]) if r in common] or list(dict.fromkeys(reads[-1]))
