"""Scratch databases for benchmarks (agent_signals.store.database's scratch databases on the configured server:
embedded unless DATABASE_URL is set). Never the project's own database."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # runnable from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "src"))

import agent_signals.store.database  # noqa: E402
from agent_signals.config import Settings  # noqa: E402


def url_of(name: str) -> str:
    return agent_signals.store.database.url_of(Settings(), name)


def create(prefix: str, *, template: str | None = None) -> str:
    """A new database (a copy of `template` when given, else migrated from scratch); returns its name."""
    return agent_signals.store.database.create_scratch(Settings(), prefix, template=template)


def drop(name: str) -> None:
    agent_signals.store.database.drop_scratch(Settings(), name)


@contextmanager
def database(prefix: str) -> Iterator[str]:
    """A scratch database for the block; yields its URL."""
    with agent_signals.store.database.scratch_database(Settings(), prefix) as url:
        yield url
