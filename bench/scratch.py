"""Scratch databases for benchmarks: created on the configured server (embedded unless DATABASE_URL is
set), migrated, and dropped afterwards. Never the project's own database."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # runnable from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "src"))

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402
from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: E402

from agent_signals import db  # noqa: E402
from agent_signals.config import Settings  # noqa: E402
from agent_signals.migrate import migrate  # noqa: E402


def server_url() -> str:
    return db.database_url(Settings())


def url_of(name: str) -> str:
    return make_conninfo(**{**conninfo_to_dict(server_url()), "dbname": name})


def _admin() -> psycopg.Connection:
    return psycopg.connect(url_of("postgres"), autocommit=True)


def create(prefix: str, *, template: str | None = None) -> str:
    """A new database (a copy of `template` when given, else migrated from scratch); returns its name."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with _admin() as conn:
        statement = sql.SQL("create database {}").format(sql.Identifier(name))
        if template:
            statement += sql.SQL(" template {}").format(sql.Identifier(template))
        conn.execute(statement)
    if not template:
        with psycopg.connect(url_of(name), autocommit=True) as conn:
            migrate(conn, Settings(database_url=url_of(name)))
    return name


def drop(name: str) -> None:
    with _admin() as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@contextmanager
def database(prefix: str, *, template: str | None = None) -> Iterator[str]:
    """A scratch database for the block; yields its URL."""
    name = create(prefix, template=template)
    try:
        yield url_of(name)
    finally:
        drop(name)
