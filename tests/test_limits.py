"""One source for each limit (issue 17, point 4): limits.py's values reach SQL (signals.limit, written by
`migrate`), dbt (its vars), the prompts (the renderer) and the answer models, and no old literal comes back.
The rendered prompts are pinned to tests/data/rendered_prompts.json (the prompts as rendered before)."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest

from agent_signals import limits
from agent_signals.errors import SchemaError
from agent_signals.store.migrate import check_current, migrate
from tests.prompt_samples import GOLDEN, rendered

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------------
# SQL


def insert_signal(conn: psycopg.Connection, user: str, content: str, tier: str = "core") -> None:
    conn.execute(
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, "
        "first_seen_at, last_seen_at) values (%s, %s, %s, %s, 'role', %s, 'inferred', now(), now())",
        [uuid4(), user, content, content.lower(), tier],
    )


@pytest.mark.db
def test_sql_reads_the_limits_of_limits_py_after_migrate(conn, settings):
    for name, value in limits.by_name().items():
        assert conn.execute("select signals.limit(%s)", [name]).fetchone()[0] == value
    assert conn.execute("select signals.limit('core_cap')").fetchone()[0] == limits.CORE_CAP
    with pytest.raises(psycopg.errors.UndefinedObject, match="limit nope is not set"):
        conn.execute("select signals.limit('nope')")


@pytest.mark.db
def test_the_cap_trigger_and_the_text_check_read_the_limits_table(conn, settings):
    conn.execute("update signals.limits set value = 2 where name = 'core_cap'")
    conn.execute("update signals.limits set value = 10 where name = 'content_max_chars'")
    insert_signal(conn, "ann", "a")
    insert_signal(conn, "ann", "b")
    with pytest.raises(psycopg.errors.CheckViolation, match="the cap is 2"):
        insert_signal(conn, "ann", "c")
    with pytest.raises(psycopg.errors.CheckViolation, match="longer than 10 characters"):
        insert_signal(conn, "bo", "x" * 11, tier="contextual")
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="between 1 and 10 characters"):
        conn.execute("select signals.add_signal('bo', %s, 'role')", ["y" * 11])


@pytest.mark.db
def test_the_text_check_is_the_content_limit(conn, settings):
    insert_signal(conn, "ann", "x" * limits.CONTENT_MAX_CHARS, tier="contextual")
    with pytest.raises(psycopg.errors.CheckViolation):
        insert_signal(conn, "bo", "x" * (limits.CONTENT_MAX_CHARS + 1), tier="contextual")


@pytest.mark.db
def test_limits_that_differ_from_the_code_are_refused_until_migrate_writes_them_again(conn, settings):
    check_current(conn, settings)
    conn.execute("update signals.limits set value = value + 1 where name = 'core_cap'")
    conn.execute("insert into signals.limits values ('gone', 1)")
    with pytest.raises(
        SchemaError, match=f"core_cap {limits.CORE_CAP + 1} in the database, {limits.CORE_CAP} here"
    ):
        check_current(conn, settings)
    assert migrate(conn, settings) == []
    check_current(conn, settings)
    assert dict(conn.execute("select name, value from signals.limits").fetchall()) == limits.by_name()


# ---------------------------------------------------------------------------------------------------
# Prompts


@pytest.mark.unit
def test_every_prompt_version_renders_as_before():
    """Byte-identical to tests/data/rendered_prompts.json, written from the templates before the limits were
    filled in by the renderer."""
    assert rendered() == json.loads(GOLDEN.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------------
# dbt


@pytest.mark.unit
def test_dbt_gets_the_limits_as_vars_from_limits_py_and_has_no_copy_of_its_own():
    import yaml

    from agent_signals.adapters import dbt as views

    project = yaml.safe_load((ROOT / "dbt" / "dbt_project.yml").read_text())
    assert not set(project["vars"]) & set(limits.by_name())  # no default that could disagree
    flag, value = views._vars(run_id="session")
    assert flag == "--vars" and json.loads(value) == {**limits.by_name(), "run_id": "session"}
    models = "\n".join(p.read_text() for p in (ROOT / "dbt" / "models").rglob("*.*"))
    assert "var('core_cap')" in models


@pytest.mark.unit
def test_a_changed_limit_is_a_new_refresh_plan(monkeypatch):
    from agent_signals.adapters import dbt as views
    from agent_signals.config import Settings

    before = views.plan_key(Settings())
    monkeypatch.setattr(limits, "CORE_CAP", limits.CORE_CAP + 1)
    assert views.plan_key(Settings()) != before
