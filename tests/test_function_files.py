"""The function files (sql/functions): applied after the migrations, recorded with their checksums, applied
again when one changes; a database migrated before they existed ends with the same schema as a fresh one."""

from __future__ import annotations

import re

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.errors import SchemaError
from agent_signals.store.schema.migrate import (
    available,
    check_current,
    checksum,
    earlier_checksums,
    function_files,
    migrate,
)
from tests.released_schema import RELEASED, migrate_as_released, schema


@pytest.mark.unit
def test_the_released_migrations_are_the_ones_migrate_accepts():
    """Each released migration is today's, or one whose function definitions moved out and whose released
    checksum migrate accepts; none is accepted that did not change."""
    current = {m.version: m for m in available()}
    for file_name, text in RELEASED.items():
        version = file_name[:4]
        assert f"{version}_{current[version].name}.sql" == file_name
        if version in earlier_checksums():
            assert checksum(text) == earlier_checksums()[version] != current[version].checksum, version
        else:
            assert text == current[version].sql, version
    assert set(earlier_checksums()) < {file_name[:4] for file_name in RELEASED}


def statements(sql: str) -> str:
    """A file's statements in lower case, without comments and without the bodies of functions and blocks."""
    return re.sub(r"\$\$.*?\$\$", "$$", re.sub(r"--[^\n]*", "", sql.lower()), flags=re.DOTALL)


@pytest.mark.unit
def test_the_migrations_define_no_function_view_or_trigger_and_the_function_files_no_table():
    """A migration keeps tables, columns and data (the source contract's views are the deployment's, and
    dropping a function that is no longer defined is a change of schema); function files only create or
    replace."""
    for migration in available():
        sql = statements(migration.sql)
        assert "create function" not in sql and "create or replace function" not in sql, migration.version
        assert "trigger" not in sql.replace("drop trigger", ""), migration.version
        assert "view signals." not in sql and "view context." not in sql, migration.version
    for name, text in function_files():
        sql = statements(text)
        for statement in ("create table", "alter table", "create index", "insert into", "create function "):
            assert statement not in sql, (name, statement)


@pytest.mark.db
def test_a_database_migrated_before_the_function_files_ends_with_the_fresh_schema(unmigrated_database, conn):
    """A database migrated by the code that kept its functions in the migrations, with data in it: `db
    migrate` accepts the released checksums, applies the new migrations and every function file, and the
    schema is then the one a fresh database gets (relations, columns, constraints, indexes, triggers,
    functions with their bodies, owners and grants, views, comments)."""
    settings = Settings(database_url=unmigrated_database)
    with psycopg.connect(unmigrated_database, autocommit=True) as old:
        migrate_as_released(old, upto="m026")
        old.execute("select signals.add_signal('u1', 'Writes in British English', 'writing')")
        old.execute(
            "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin,"
            " first_seen_at, last_seen_at) values (gen_random_uuid(), 'u1', 'Leads the data team',"
            " 'leads the data team', 'role', 'core', 'inferred', now(), now())"
        )
        with pytest.raises(SchemaError, match="not up to date"):
            check_current(old, settings)

        applied = migrate(old, settings)
        released = {file_name[:4] for file_name in RELEASED}
        assert applied == [
            *(m.version for m in available() if m.version not in released),
            *(name for name, _ in function_files()),
        ]
        check_current(old, settings)
        assert migrate(old, settings) == []
        assert schema(old) == schema(conn)  # conn: a fresh database migrated by this code
        assert old.execute("select count(*) from signals.signals").fetchone()[0] == 2
        assert old.execute("select count(*) from signals.events").fetchone()[0] == 1
        block = old.execute("select context_markdown from context.user_context_as_of('u1', now())").fetchone()
        assert block[0] == "## About this user\n### Confirmed by the user\n- Writes in British English"


@pytest.mark.db
def test_a_changed_function_file_is_applied_again_and_runs_wait_for_it(conn, settings):
    """A function file whose checksum is not the recorded one (a new release changed it) makes the start of
    a run refuse the database until `db migrate` applied the files again; they are applied whole, so what a
    dropped function took with it (here a view built on it) comes back too."""
    conn.execute("drop function signals.fingerprint(text) cascade")  # and signals.stale_summaries
    conn.execute("update ops.schema_functions set checksum = 'older' where name = '70_read_path.sql'")
    with pytest.raises(
        SchemaError, match=r"SQL functions are not this code's \(sql/functions: 70_read_path.sql\)"
    ):
        check_current(conn, settings)
    assert migrate(conn, settings) == [name for name, _ in function_files()]
    check_current(conn, settings)
    assert conn.execute("select count(*) from signals.stale_summaries").fetchone()[0] == 0
    recorded = dict(conn.execute("select name, checksum from ops.schema_functions").fetchall())
    assert recorded == {name: checksum(text) for name, text in function_files()}
