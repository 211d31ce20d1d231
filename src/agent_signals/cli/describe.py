"""How the commands print a signal's scope and validity (`signals list`, `replay`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Scoped(Protocol):
    agent_id: str | None
    valid_from: datetime | None
    valid_to: datetime | None


def scope(signal: Scoped) -> str:
    """`profile` or `agent <id>`."""
    return "profile" if signal.agent_id is None else f"agent {signal.agent_id}"


def validity(signal: Scoped) -> str:
    """`2025-01-01..now`; `?..2020-01-01` when the start is not known; days in UTC."""

    def day(moment: datetime | None, unset: str) -> str:
        return unset if moment is None else f"{moment.astimezone(UTC):%Y-%m-%d}"

    return f"{day(signal.valid_from, '?')}..{day(signal.valid_to, 'now')}"
