"""Migrations: ordered, recorded, idempotent; a schema newer than the code or edited migrations are refused."""

from __future__ import annotations

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.errors import DatabaseUnavailable, SchemaError
from agent_signals.store import database
from agent_signals.store.schema.migrate import available, check_current, function_files, migrate
from tests.released_schema import migrate_as_released

pytestmark = pytest.mark.db


def versions(applied: list[str]) -> list[str]:
    """The migrations of what `migrate` applied (the function files follow them)."""
    return [name for name in applied if not name.endswith(".sql")]


def test_migrate_is_idempotent_and_recorded(conn, settings):
    assert migrate(conn, settings) == []
    versions = [r[0] for r in conn.execute("select version from ops.schema_migrations order by version")]
    assert versions == [m.version for m in available()]
    check_current(conn, settings)


def test_a_fresh_database_is_migrated_in_order(unmigrated_database):
    settings = Settings(database_url=unmigrated_database)
    with psycopg.connect(unmigrated_database, autocommit=True) as conn:
        with pytest.raises(SchemaError, match="not up to date"):
            check_current(conn, settings)
        assert migrate(conn, settings) == [m.version for m in available()] + [n for n, _ in function_files()]
        assert conn.execute("select to_regclass('signals.signals') is not null").fetchone()[0]


def test_a_schema_newer_than_the_code_is_refused(conn, settings):
    conn.execute("insert into ops.schema_migrations (version, name, checksum) values ('m999', 'future', 'x')")
    with pytest.raises(SchemaError, match="migrations this code does not know: m999"):
        check_current(conn, settings)
    with pytest.raises(SchemaError, match="m999"):
        migrate(conn, settings)


def test_an_edited_migration_is_refused(conn, settings):
    conn.execute("update ops.schema_migrations set checksum = 'edited' where version = 'm001'")
    with pytest.raises(SchemaError, match="m001 was changed after it was applied"):
        check_current(conn, settings)


def test_the_event_log_is_append_only(conn):
    conn.execute("insert into signals.events (user_id, action, actor) values ('u', 'create', 'pipeline')")
    for statement in (
        "update signals.events set action = 'x'",
        "delete from signals.events",
        "truncate signals.events",
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
            conn.execute(statement)


def test_an_unreachable_server_is_a_clear_error():
    settings = Settings(database_url="postgresql://nobody:secret@127.0.0.1:1/nowhere")
    with pytest.raises(DatabaseUnavailable) as error:
        database.connect(database.database_url(settings))
    message = str(error.value)
    assert "cannot connect to PostgreSQL at postgresql://nobody:***@127.0.0.1:1/nowhere" in message
    assert "secret" not in message and "DATABASE_URL" in message


def test_a_malformed_url_is_a_clear_error():
    with pytest.raises(DatabaseUnavailable, match="not a valid PostgreSQL URL"):
        database.connect("not a url")


def test_validity_upgrades_a_database_with_signals_of_every_status(unmigrated_database):
    """m022 on a database migrated and written before it (by the code of then): every status (retracted too)
    stays as it was, validity is null (the fact holds, its start not known), and the rebuild at a past time
    still reads."""
    with psycopg.connect(unmigrated_database, autocommit=True) as conn:
        migrate_as_released(conn, upto="m021")
        for status in ("active", "archived", "merged", "deleted", "retracted"):
            conn.execute(
                "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,"
                " first_seen_at, last_seen_at) values (gen_random_uuid(), 'u1', %(text)s, %(text)s, 'role',"
                " 'contextual', 'inferred', %(status)s, now(), now())",
                {"text": f"fact {status}", "status": status},
            )
        conn.execute("select signals.add_signal('u1', 'Writes in British English', 'writing')")
        assert versions(migrate(conn, Settings(database_url=unmigrated_database)))[0] == "m022"
        rows = conn.execute(
            "select status, valid_from, valid_to, supersedes from signals.signals order by origin, content"
        ).fetchall()
        assert [r[0] for r in rows] == ["active", "archived", "deleted", "merged", "retracted", "active"]
        assert {r[1:] for r in rows} == {(None, None, None)}
        block = conn.execute(
            "select context_markdown from context.user_context_as_of('u1', now())"
        ).fetchone()
        assert block[0] == "## About this user\n### Confirmed by the user\n- Writes in British English"


def test_review_upgrades_a_database_with_signals_of_every_status(unmigrated_database):
    """m023 on a database migrated and written before it (by the code of then): every status stays as it was,
    none is waiting for review, the events keep their actors; then pending and rejected are statuses the
    pipeline's candidates may take (never the user's own), and only the review functions' events name a
    reviewer."""
    statuses = ("active", "archived", "ended", "merged", "deleted", "retracted")
    insert = (
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,"
        " first_seen_at, last_seen_at) values (gen_random_uuid(), 'u1', %(text)s, %(text)s, 'role',"
        " 'contextual', %(origin)s, %(status)s, now(), now()) returning signal_id"
    )
    with psycopg.connect(unmigrated_database, autocommit=True) as conn:
        migrate_as_released(conn, upto="m022")
        for status in statuses:
            conn.execute(insert, {"text": f"fact {status}", "status": status, "origin": "inferred"})
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(insert, {"text": "fact pending", "status": "pending", "origin": "inferred"})
        conn.execute("select signals.add_signal('u1', 'Writes in British English', 'writing')")
        conn.execute(
            "insert into signals.events (user_id, action, actor) values ('u1', 'create', 'pipeline')"
        )

        assert versions(migrate(conn, Settings(database_url=unmigrated_database)))[0] == "m023"
        rows = conn.execute(
            "select status, review_reason from signals.signals order by origin, content"
        ).fetchall()
        assert rows == [*((s, None) for s in sorted(statuses)), ("active", None)]
        assert conn.execute("select actor from signals.events order by event_id").fetchall() == [
            ("user",),
            ("pipeline",),
        ]
        block = conn.execute(
            "select context_markdown from context.user_context_as_of('u1', now())"
        ).fetchone()
        assert block[0] == "## About this user\n### Confirmed by the user\n- Writes in British English"

        held = conn.execute(
            insert, {"text": "fact pending", "status": "pending", "origin": "inferred"}
        ).fetchone()[0]
        conn.execute(insert, {"text": "fact rejected", "status": "rejected", "origin": "inferred"})
        with pytest.raises(psycopg.errors.CheckViolation, match="signals_review_origin_check"):
            conn.execute("set role agent_signals_user_paths")
            try:
                conn.execute(insert, {"text": "own pending", "status": "pending", "origin": "manual"})
            finally:
                conn.execute("reset role")
        with pytest.raises(psycopg.errors.CheckViolation, match="events_actor_check"):
            conn.execute(
                "insert into signals.events (user_id, action, actor) values ('u1', 'create', 'alice')"
            )
        assert conn.execute("select * from signals.review_approve(%s, 'alice')", [held]).fetchone() == (
            "active",
            "contextual",
            None,
        )
        assert conn.execute(
            "select actor from signals.events where action = 'review_approve'"
        ).fetchone() == ("alice",)
