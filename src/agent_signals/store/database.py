"""Connections: DATABASE_URL when set, otherwise an embedded PostgreSQL 16 + pgvector (pgserver)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agent_signals.config import Settings
from agent_signals.errors import DatabaseUnavailable

CONNECT_TIMEOUT_S = 10


def database_url(settings: Settings) -> str:
    """The libpq URL of the project database, starting the embedded server on demand."""
    if settings.database.url:
        return settings.database.url
    return _embedded_url(settings)


def _embedded_url(settings: Settings) -> str:
    settings.database.data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = settings.database.data_dir / "pgdata"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs complains about XDG_RUNTIME_DIR as root
        import pgserver  # imported lazily: only the embedded path needs it

        try:
            server = pgserver.get_server(pgdata, cleanup_mode=None)
        except Exception as exc:  # pgserver raises plain exceptions with the postgres log inside
            raise DatabaseUnavailable(
                f"could not start the embedded PostgreSQL in {pgdata}: {exc}",
                hint=f"check the folder's permissions and free disk, or remove {pgdata} to start afresh",
            ) from exc
    socket_dir = conninfo_to_dict(server.get_uri())["host"]
    admin = make_conninfo(host=socket_dir, user="postgres", dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute(
            "select 1 from pg_database where datname = %s", [settings.database.name]
        ).fetchone()
        if not exists:
            conn.execute(
                psycopg.sql.SQL("create database {}").format(psycopg.sql.Identifier(settings.database.name))
            )
    return f"postgresql://postgres@/{quote(settings.database.name)}?host={quote(socket_dir)}"


def restarted_url(settings: Settings) -> str:
    """The URL to connect again after a run lost its connections: DATABASE_URL's server as it is; the
    embedded server started again if it stopped (as every command starts it on demand)."""
    if settings.database.url:
        return settings.database.url
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(
            settings.database.data_dir / "pgdata", cleanup_mode=None
        )  # this process's handle
        try:
            with server._lock:  # pgserver's own start runs under this inter-process lock (pgserver 0.1.4)
                server.ensure_postgres_running()
        except Exception as exc:
            raise DatabaseUnavailable(
                f"could not start the embedded PostgreSQL in {server.pgdata} again: {exc}",
                hint=f"see {server.pgdata / 'log'}",
            ) from exc
    return _embedded_url(settings)


class DatabaseLost(DatabaseUnavailable):
    """A run lost its database connection: it started nothing new and ended `failed`."""


def connection_lost(exc: BaseException) -> bool:
    """Whether an error means the connection is gone, not that a statement failed: the server stopped,
    restarted or ended the session (a connection exception, SQLSTATE 08xxx; an operator intervention,
    57P01-57P03; none at all: the client found the connection broken), or no connection could be had."""
    if isinstance(exc, DatabaseUnavailable):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


def redact(url: str) -> str:
    """The URL without its password, for error messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def connect(url: str, **kwargs) -> psycopg.Connection:
    """A psycopg connection, or a DatabaseUnavailable that names the server and the fix."""
    try:
        return psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, **kwargs)
    except psycopg.OperationalError as exc:
        raise unavailable(url, exc) from exc
    except psycopg.ProgrammingError as exc:  # a malformed URL
        raise DatabaseUnavailable(
            f"DATABASE_URL is not a valid PostgreSQL URL: {exc}",
            hint="use postgresql://USER:PASSWORD@HOST:PORT/DBNAME, or unset DATABASE_URL for the embedded server",
        ) from exc


async def aconnect(url: str, **kwargs) -> psycopg.AsyncConnection:
    try:
        return await psycopg.AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_S, **kwargs)
    except psycopg.OperationalError as exc:
        raise unavailable(url, exc) from exc


def unavailable(url: str, exc: Exception) -> DatabaseUnavailable:
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatabaseUnavailable(
        f"cannot connect to PostgreSQL at {redact(url)}: {first_line}",
        hint="check that the server is running and DATABASE_URL is right, or unset DATABASE_URL "
        "to use the embedded PostgreSQL",
    )


@contextmanager
def session(settings: Settings, *, autocommit: bool = True) -> Iterator[psycopg.Connection]:
    """A connection to the project database for one command; closed on exit. Autocommit: every write
    goes through an explicit `with conn.transaction()`, which commits when its block ends."""
    conn = connect(database_url(settings), autocommit=autocommit)
    try:
        yield conn
    finally:
        conn.close()


def url_of(settings: Settings, dbname: str) -> str:
    """The URL of another database on the project database's server."""
    return make_conninfo(**{**conninfo_to_dict(database_url(settings)), "dbname": dbname})


def create_scratch(settings: Settings, prefix: str, *, template: str | None = None) -> str:
    """A new database on the project's server, never the project's own: a copy of `template` when given,
    else migrated from scratch. Returns its name (drop it with drop_scratch)."""
    import uuid

    from agent_signals.store.schema.migrate import migrate  # migrate imports this module

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    statement = psycopg.sql.SQL("create database {}").format(psycopg.sql.Identifier(name))
    if template:
        statement += psycopg.sql.SQL(" template {}").format(psycopg.sql.Identifier(template))
    with connect(url_of(settings, "postgres"), autocommit=True) as conn:
        try:
            conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise DatabaseUnavailable(
                f"cannot create a scratch database on {redact(database_url(settings))}: {exc}",
                hint="the role needs CREATEDB; or unset DATABASE_URL to use the embedded PostgreSQL",
            ) from exc
    if not template:
        url = url_of(settings, name)
        with connect(url, autocommit=True) as conn:
            migrate(conn, settings.replace(database_url=url))
    return name


def drop_scratch(settings: Settings, name: str) -> None:
    with connect(url_of(settings, "postgres"), autocommit=True) as conn:
        conn.execute(
            psycopg.sql.SQL("drop database if exists {} with (force)").format(psycopg.sql.Identifier(name))
        )


@contextmanager
def scratch_database(settings: Settings, prefix: str) -> Iterator[str]:
    """A migrated scratch database for the block; yields its URL, drops it after."""
    name = create_scratch(settings, prefix)
    try:
        yield url_of(settings, name)
    finally:
        drop_scratch(settings, name)
