"""SQL lives in files under sql/; this module reads them (once per process)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from agent_signals.config import Settings


@cache
def _read(project_dir: Path, name: str) -> str:
    return (project_dir / "sql" / "queries" / f"{name}.sql").read_text(encoding="utf-8")


def query(settings: Settings, name: str) -> str:
    """The text of sql/queries/NAME.sql (named parameters in psycopg's %(name)s style)."""
    return _read(settings.project_dir, name)
