"""The progress line of a long command (backfill): users and messages done, rate and ETA, on stderr."""

from __future__ import annotations

import sys
import time

import click


class Progress:
    """Users and messages done, rate and ETA, on stderr: redrawn in place on a terminal, a line every few
    seconds otherwise (logs, CI)."""

    def __init__(self, total_messages: int) -> None:
        self.total = total_messages
        self.users: set[str] = set()  # distinct: a user can be in every slice of a backfill
        self.messages = 0
        self.started = self.printed = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, user_ids: list[str], messages: int) -> None:
        self.users.update(user_ids)
        self.messages += messages
        now = time.monotonic()
        if self.tty or now - self.printed >= 2 or self.messages >= self.total:
            self.printed = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.messages / max(now - self.started, 1e-6)
        left = max(self.total - self.messages, 0)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        line = (
            f"users {len(self.users)}, messages {self.messages}/{self.total} "
            f"({100 * self.messages / max(self.total, 1):.0f}%), {rate:.1f} msg/s, ETA {eta}"
        )
        click.echo(f"\r{line}" if self.tty else line, err=True, nl=not self.tty)

    def close(self) -> None:
        if self.tty:
            click.echo("", err=True)
