"""Backfills: a window [since, until) replayed slice by slice through the same stages as a scheduled run,
watermarks ignored. Idempotent by construction (apply never duplicates evidence, a re-statement of a
known text reinforces it only with new evidence), resumable (a finished slice is recorded under the
backfill's key and not redone)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta

from agent_signals.errors import AgentSignalsError

_SLICE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w)\s*$", re.I)
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class BadWindow(AgentSignalsError):
    """A backfill window or slice that cannot be replayed."""


def parse_slice(text: str) -> timedelta:
    """'1d', '6h', '30m', '1w' -> timedelta."""
    match = _SLICE.match(text)
    if not match or int(match[1]) == 0:
        raise BadWindow(f"slice {text!r} is not a duration", hint="use a number and a unit: 30m, 6h, 1d, 1w")
    return timedelta(**{_UNITS[match[2].lower()]: int(match[1])})


def check_window(since: datetime, until: datetime) -> None:
    if since.tzinfo is None or until.tzinfo is None:
        raise BadWindow("since and until need a timezone", hint="e.g. 2026-05-01T00:00:00Z")
    if since >= until:
        raise BadWindow(
            f"the window is empty: since {since.isoformat()} is not before until {until.isoformat()}"
        )


def slices(since: datetime, until: datetime, step: timedelta) -> Iterator[tuple[datetime, datetime]]:
    start = since
    while start < until:
        end = min(start + step, until)
        yield start, end
        start = end


def backfill_key(
    since: datetime, until: datetime, users: list[str] | None, step: timedelta, prompt: str
) -> str:
    """The identity of a backfill: the same parameters and prompt version resume the same backfill."""
    spec = {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "users": sorted(users) if users else None,
        "slice_s": step.total_seconds(),
        "prompt": prompt,
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]
