"""The schema, from the package's SQL. First the migrations of sql/migrations (mNNN_name.sql: tables, columns
and data), each applied once, in its own transaction, and recorded with its checksum; then the function files
of sql/functions (NN_name.sql: functions, views and triggers, each `create or replace`), all applied in the
order of their names in one transaction whenever one of them changed or a migration ran, and recorded with
their checksums; then the shared limits of limits.py written into signals.limits (SQL reads them through
signals.limit)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from functools import cache

import psycopg

from agent_signals import limits
from agent_signals.config import Settings
from agent_signals.errors import SchemaError
from agent_signals.store.sqlfiles import SQL, query, sql_files

MIGRATION_FILE = re.compile(r"^(m\d{3})_([a-z0-9_]+)\.sql$")
FUNCTION_FILE = re.compile(r"^(\d{2})_[a-z0-9_]+\.sql$")
LOCK_KEY = 0x5167_6E61  # one migrator at a time, whatever the number of processes


def checksum(sql: str) -> str:
    return hashlib.sha256(sql.encode()).hexdigest()


@dataclass(frozen=True)
class Migration:
    version: str
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return checksum(self.sql)


@cache
def earlier_checksums() -> dict[str, str]:
    """version -> the checksum a migration had before the functions it defined moved to sql/functions: what
    a database migrated before then has recorded (sql/migrations/earlier_checksums.toml)."""
    return tomllib.loads((SQL / "migrations" / "earlier_checksums.toml").read_text(encoding="utf-8"))


@cache
def available() -> tuple[Migration, ...]:
    """The migrations of the package (sql/migrations/mNNN_name.sql), in version order (read once)."""
    found = []
    for file_name, text in sql_files("migrations"):
        match = MIGRATION_FILE.match(file_name)
        if not match:
            raise SchemaError(
                f"sql/migrations/{file_name} is not named mNNN_name.sql", hint="rename the file"
            )
        found.append(Migration(match[1], match[2], text))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise SchemaError("two migration files of sql/migrations share a version")
    return tuple(found)


@cache
def function_files() -> tuple[tuple[str, str], ...]:
    """(file name, text) of the function files (sql/functions/NN_name.sql), in the order they are applied
    (read once)."""
    found = tuple(sql_files("functions"))
    for file_name, _text in found:
        if not FUNCTION_FILE.match(file_name):
            raise SchemaError(f"sql/functions/{file_name} is not named NN_name.sql", hint="rename the file")
    prefixes = [file_name[:2] for file_name, _text in found]
    if len(set(prefixes)) != len(prefixes):
        raise SchemaError("two function files of sql/functions share a number: their order would be unstated")
    return found


def applied(conn: psycopg.Connection) -> dict[str, str]:
    """version -> checksum of the migrations recorded in the database (empty for a fresh database)."""
    exists = conn.execute("select to_regclass('ops.schema_migrations') is not null").fetchone()[0]
    if not exists:
        return {}
    return dict(conn.execute("select version, checksum from ops.schema_migrations").fetchall())


def applied_functions(conn: psycopg.Connection) -> dict[str, str]:
    """file name -> checksum of the function files recorded in the database (empty before m027)."""
    exists = conn.execute("select to_regclass('ops.schema_functions') is not null").fetchone()[0]
    if not exists:
        return {}
    return dict(conn.execute("select name, checksum from ops.schema_functions").fetchall())


def check_vector(conn: psycopg.Connection) -> None:
    row = conn.execute("select 1 from pg_available_extensions where name = 'vector'").fetchone()
    if not row:
        raise SchemaError(
            "the pgvector extension is not available on this PostgreSQL server",
            hint="install pgvector on the server (e.g. the pgvector/pgvector image), or unset DATABASE_URL "
            "to use the embedded PostgreSQL, which has it",
        )


def _check_history(known: dict[str, Migration], done: dict[str, str]) -> None:
    newer = sorted(set(done) - set(known))
    if newer:
        raise SchemaError(
            f"the database schema has migrations this code does not know: {', '.join(newer)}",
            hint="the database was migrated by a newer agent-signals; upgrade this installation",
        )
    for version, recorded in done.items():
        if recorded not in (known[version].checksum, earlier_checksums().get(version)):
            raise SchemaError(
                f"migration {version} was changed after it was applied",
                hint="never edit an applied migration; add a new mNNN file instead",
            )


def check_current(conn: psycopg.Connection, settings: Settings) -> None:
    """Refuse to run against a schema that is missing, behind, ahead of, or different from this code."""
    known = {m.version: m for m in available()}
    done = applied(conn)
    _check_history(known, done)
    missing = sorted(set(known) - set(done))
    if missing:
        raise SchemaError(
            f"the database schema is not up to date (pending: {', '.join(missing)})",
            hint="run `agent-signals db migrate`",
        )
    check_functions(conn)
    check_limits(conn)
    check_embedding_dimension(conn, settings)


def check_functions(conn: psycopg.Connection) -> None:
    """The database's functions, views and triggers are those of this code's function files: else a run
    would call others."""
    wanted = {name: checksum(text) for name, text in function_files()}
    recorded = applied_functions(conn)
    if recorded != wanted:
        differ = sorted(
            name for name in set(wanted) | set(recorded) if wanted.get(name) != recorded.get(name)
        )
        raise SchemaError(
            f"the database's SQL functions are not this code's (sql/functions: {', '.join(differ)})",
            hint="run `agent-signals db migrate` with this release (the files of another release were "
            "applied, or none yet); a database brought up to date by a newer release needs this installation "
            "upgraded",
        )


def apply_functions(conn: psycopg.Connection, *, always: bool) -> list[str]:
    """Apply every function file, in order, in one transaction, when one of them differs from what the
    database recorded, or `always` (a migration ran: it may have dropped or changed what they define). Returns
    the files applied."""
    files = function_files()
    wanted = {name: checksum(text) for name, text in files}
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [LOCK_KEY])
        if not always and applied_functions(conn) == wanted:
            return []
        for _name, text in files:
            conn.execute(text)
        conn.execute(
            query("migrate/record_functions"), {"names": list(wanted), "checksums": list(wanted.values())}
        )
    return list(wanted)


def check_limits(conn: psycopg.Connection) -> None:
    """The database's limits (signals.limits) are this code's (limits.py): else SQL would enforce others."""
    stored = dict(conn.execute(query("migrate/read_limits")).fetchall())
    wanted = limits.by_name()
    if stored != wanted:
        differ = sorted(set(stored) | set(wanted))
        shown = ", ".join(
            f"{name} {stored.get(name, 'unset')} in the database, {wanted.get(name, 'unset')} here"
            for name in differ
            if stored.get(name) != wanted.get(name)
        )
        raise SchemaError(
            f"the database's limits are not this code's ({shown})", hint="run `agent-signals db migrate`"
        )


def write_limits(conn: psycopg.Connection) -> None:
    """Write limits.py's values into signals.limits (an upsert; a limit no longer defined goes)."""
    named = limits.by_name()
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [LOCK_KEY])
        conn.execute(query("migrate/write_limits"), {"names": list(named), "values": list(named.values())})


def check_embedding_dimension(conn: psycopg.Connection, settings: Settings) -> None:
    declared, embedded = conn.execute(query("migrate/embedding_column")).fetchone()
    wanted = f"vector({settings.model.embedding_dim})"
    if declared == "vector":
        raise SchemaError("the embedding column has no dimension yet", hint="run `agent-signals db migrate`")
    if declared != wanted:
        raise SchemaError(
            f"signals.signals.embedding is {declared} but AGENT_SIGNALS_EMBEDDING_DIM is {settings.model.embedding_dim}",
            hint=f"set AGENT_SIGNALS_EMBEDDING_DIM to the stored dimension ({embedded} signal(s) are embedded), "
            "or use an embedding model of the stored dimension",
        )


def set_embedding_dimension(conn: psycopg.Connection, settings: Settings) -> None:
    """Give the embedding column the configured dimension, once, while nothing is embedded yet."""
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [LOCK_KEY])
        declared, embedded = conn.execute(query("migrate/embedding_column")).fetchone()
        if declared == "vector" or (embedded == 0 and declared != f"vector({settings.model.embedding_dim})"):
            conn.execute(
                query("migrate/set_embedding_dimension").format(dim=int(settings.model.embedding_dim))
            )


def migrate(conn: psycopg.Connection, settings: Settings) -> list[str]:
    """Apply every pending migration, then the function files if needed, and write the limits; returns the
    versions and function files applied now. Idempotent."""
    check_vector(conn)
    known = {m.version: m for m in available()}
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [LOCK_KEY])
        conn.execute(query("migrate/bootstrap_migrations"))
    now_applied = []
    for migration in known.values():
        with conn.transaction():
            conn.execute("select pg_advisory_xact_lock(%s)", [LOCK_KEY])
            done = applied(conn)  # read under the lock: another process may have migrated meanwhile
            _check_history(known, done)
            if migration.version in done:
                continue
            conn.execute(migration.sql)
            conn.execute(
                query("migrate/record_migration"),
                {"version": migration.version, "name": migration.name, "checksum": migration.checksum},
            )
        now_applied.append(migration.version)
    now_applied += apply_functions(conn, always=bool(now_applied))
    write_limits(conn)
    set_embedding_dimension(conn, settings)
    return now_applied
