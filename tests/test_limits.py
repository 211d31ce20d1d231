"""One source for each limit (issue 17, point 4): limits.py's values reach SQL (signals.limit, written by
`migrate`), dbt (its vars), the prompts (the renderer) and the answer models, and no old literal comes back.
The rendered prompts are pinned to tests/data/rendered_prompts.json (the prompts as rendered before)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest

from agent_signals import limits
from agent_signals.errors import SchemaError
from agent_signals.store.schema.migrate import check_current, migrate
from tests.prompt_samples import GOLDEN, rendered

ROOT = Path(__file__).resolve().parents[1]
SQL = ROOT / "src" / "agent_signals" / "sql"

# Where the limits used to be written as numbers, each with a line that used to hold one (so that no pattern
# silently matches nothing): (files, pattern, old line).
OLD_LITERALS = [
    ("src", r"\bCORE_CAP\s*=\s*\d", "CORE_CAP = 20  # also signals.core_cap() in m004"),
    ("src", r"\bMAX_CONTENT_CHARS\b", "MAX_CONTENT_CHARS = 200"),
    ("src", r"\bSUMMARY_MAX_WORDS\s*=\s*\d", "SUMMARY_MAX_WORDS = 80"),
    (
        "src",
        r"StringConstraints\([^)]*max_length=\d",
        "StringConstraints(strip_whitespace=True, min_length=1, max_length=300)",
    ),
    (
        "src",
        r"list\[CoreHandle\]\s*=\s*Field\([^)]*max_length=\d",
        "signals: list[CoreHandle] = Field(min_length=2, max_length=20)",
    ),
    (
        "src",
        r"ExpectColumnValueLengthsToBeBetween\([^)]*max_value=\d",
        'ExpectColumnValueLengthsToBeBetween(column="content", min_value=1, max_value=200)',
    ),
    (
        "src",
        r"TableCheck\(\s*f?\"at most \d",
        'TableCheck("at most 20 active inferred core per user", True, "expect_core_cap")',
    ),
    ("src", r"cap_match else \d", "return core, own, int(cap_match[1]) if cap_match else 20"),
    (
        "src",
        r"\b(?:summary_words|max_words|content_chars)=",  # passed by a caller, not the renderer
        'prompt_set(settings, "summarize").render(signals=signals, max_words=SUMMARY_MAX_WORDS)',
    ),
    ("sql", r"count\(\*\)\s*>\s*\d{2,}", "having count(*) > 20"),
    (
        "sql",
        r"length\((?:[^()]|\([^()]*\))*\)\s*(?:>=?|<=?|between\s+\d+\s+and)\s*\d{2,}",
        "if key = '' or length(clean) > 300 then",
    ),
    (
        "sql",
        r"length\((?:[^()]|\([^()]*\))*\)\s*(?:>=?|<=?|between\s+\d+\s+and)\s*\d{2,}",
        "check (length(btrim(content)) between 1 and 500)",
    ),
    (
        "sql",
        r"\$\$\s*select\s+\d+\s*\$\$",
        "create function signals.core_cap() returns integer language sql immutable as $$ select 20 $$;",
    ),
    (
        "sql",
        r"between 1 and \d+ characters",
        "raise exception 'a signal needs between 1 and 300 characters of text'",
    ),
    ("dbt", r"\bcore_limit\b", "  core_limit: 20          # bucket sizes of context.user_signals"),
    ("dbt", r"\bcore_cap\s*:\s*\d", "  core_cap: 20"),
    (
        "dbt",
        r"\bcontextual_limit\s*:\s*\d",
        "  contextual_limit: 50    # size of context.user_signals' contextual bucket",
    ),
    ("dbt", r"rank\s*<=\s*\d", "where (bucket = 'core' and rank <= 20)"),
    ("dbt", r"max_(?:rows|value):\s*[\'\"]?\d{2,3}(?!\d)", "max_value: 20"),
    (
        "prompts",
        r"at most \d+ (?:characters|words)",
        "content: at most 120 characters, third person without a subject",
    ),
    ("prompts", r"cap of \d", "within a cap of 20."),
]
MIGRATIONS_BEFORE_LIMITS = "m016"  # applied migrations are never edited: m016_limits redefines what they held


def scanned(area: str) -> list[Path]:
    if area == "src":
        return [p for p in (ROOT / "src").rglob("*.py") if p != ROOT / "src" / "agent_signals" / "limits.py"]
    if area == "sql":
        migrations = sorted((SQL / "migrations").glob("m*.sql"))
        newer = [p for p in migrations if p.name[:4] >= MIGRATIONS_BEFORE_LIMITS]
        return [*sorted((SQL / "queries").rglob("*.sql")), *sorted((SQL / "functions").glob("*.sql")), *newer]
    if area == "dbt":
        project = ROOT / "dbt"
        return [p for p in project.rglob("*") if p.suffix in (".sql", ".yml") and "target" not in p.parts]
    return sorted((ROOT / "prompts").rglob("*.j2"))


# ---------------------------------------------------------------------------------------------------
# No limit written twice


@pytest.mark.unit
@pytest.mark.parametrize(
    ("area", "pattern", "old"), OLD_LITERALS, ids=lambda v: v if v in ("src", "sql", "dbt", "prompts") else ""
)
def test_no_limit_is_written_as_a_number_outside_limits_py(area, pattern, old):
    assert re.search(pattern, old), "the pattern no longer matches the line it is for"
    files = scanned(area)
    assert files
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}: {match[0]}"
        for path in files
        for text in [path.read_text(encoding="utf-8")]
        for match in re.finditer(pattern, text)
    ]
    assert not found, f"use agent_signals.limits (SQL: signals.limit(name), dbt: var(name)): {found}"


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
def test_the_live_functions_and_checks_hold_no_limit_of_their_own(conn, settings):
    """The migrations before m016 still hold the old numbers (applied migrations are never edited); the
    schema they leave, once m016 has run, reads the limits."""
    for function in ("check_core_cap", "check_content_length", "add_signal", "edit_signal"):
        body = conn.execute(
            "select pg_get_functiondef(p.oid) from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
            " where n.nspname = 'signals' and p.proname = %s",
            [function],
        ).fetchone()[0]
        assert "signals.limit('" in body, function
        for pattern in [pattern for area, pattern, _old in OLD_LITERALS if area == "sql"]:
            assert not re.search(pattern, body), (function, pattern)
    assert conn.execute("select to_regprocedure('signals.core_cap()')").fetchone()[0] is None
    checks = conn.execute(
        "select string_agg(pg_get_constraintdef(oid), ' ') from pg_constraint"
        " where conrelid = 'signals.signals'::regclass and contype = 'c'"
    ).fetchone()[0]
    assert "500" not in checks and "length(btrim(content)) >= 1" in checks


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


@pytest.mark.unit
def test_the_renderer_fills_the_limits_into_every_template_and_the_version(monkeypatch, tmp_path):
    from agent_signals.config import Settings
    from agent_signals.core.prompting import prompts
    from tests import prompt_samples as samples

    before, after = tmp_path / "before", tmp_path / "after"
    for copy in (before, after):
        shutil.copytree(Settings().prompts_dir, copy / "prompts")
    version = prompts.prompt_set(Settings(project_dir=before), "extract").version
    monkeypatch.setattr(limits, "CONTENT_PROMPT_CHARS", 99)
    monkeypatch.setattr(limits, "SUMMARY_MAX_WORDS", 33)
    # the same files with other limits are another version: the rendered text differs
    assert prompts.prompt_set(Settings(project_dir=after), "extract").version != version
    for prompt_version in ("v1", "v2"):
        settings = Settings(prompt_version=prompt_version)
        system = prompts.render_extract(settings, samples.MESSAGES, [], samples.TODAY)[0]["content"]
        assert "content: at most 99 characters" in system and "at most 33 words" in system
    reconcile = prompts.render_reconcile(Settings(), samples.CORE, [], 7, samples.TODAY)[0]["content"]
    assert "at most 99 characters" in reconcile and "within a cap of 7." in reconcile
    summarize = prompts.render_summarize(Settings(), samples.SIGNALS, samples.TODAY)[0]["content"]
    assert "at most 33 words" in summarize
    with pytest.raises(TypeError, match="summary_words"):
        prompts.prompt_set(Settings(), "summarize").render(signals=[], today="x", summary_words=5)


def max_lengths(value: object, key: str = "") -> list[tuple[str, str, int]]:
    """(property name, keyword, bound) of every maxLength / maxItems in a JSON schema."""
    found = []
    if isinstance(value, dict):
        for keyword in ("maxLength", "maxItems"):
            if keyword in value:
                found.append((key, keyword, value[keyword]))
        for name, inner in value.items():
            found += max_lengths(inner, key if name in ("items", "anyOf", "oneOf", "allOf") else name)
    elif isinstance(value, list):
        for inner in value:
            found += max_lengths(inner, key)
    return found


@pytest.mark.unit
@pytest.mark.parametrize(
    "path", sorted((ROOT / "prompts").glob("*/*.schema.json")), ids=lambda p: p.parent.name + "/" + p.name
)
def test_the_answer_schemas_bound_texts_by_the_limits(path):
    """Every prompt version's answer schema (v1's are generated from core/prompting/answers.py, v2's written by hand)
    bounds a signal's text, a quote and a summary by limits.py."""
    bounds = {
        ("content", "maxLength"): limits.CONTENT_MAX_CHARS,
        ("quote", "maxLength"): limits.QUOTE_MAX_CHARS,
        ("summary", "maxLength"): limits.SUMMARY_MAX_CHARS,
        ("signals", "maxItems"): limits.CORE_CAP,  # handles in one merge
    }
    found = max_lengths(json.loads(path.read_text()))
    assert any((name, keyword) in bounds for name, keyword, _b in found)
    for name, keyword, bound in found:
        if (name, keyword) in bounds:
            assert bound == bounds[name, keyword], (name, keyword)


# ---------------------------------------------------------------------------------------------------
# dbt


@pytest.mark.unit
def test_dbt_gets_the_limits_as_vars_from_limits_py_and_has_no_copy_of_its_own():
    import yaml

    from agent_signals.adapters import dbt_views

    project = yaml.safe_load((ROOT / "dbt" / "dbt_project.yml").read_text())
    assert not set(project["vars"]) & set(limits.by_name())  # no default that could disagree
    flag, value = dbt_views._vars(run_id="session")
    assert flag == "--vars" and json.loads(value) == {**limits.by_name(), "run_id": "session"}
    models = "\n".join(p.read_text() for p in (ROOT / "dbt" / "models").rglob("*.*"))
    assert "var('core_cap')" in models


@pytest.mark.unit
def test_a_changed_limit_is_a_new_refresh_plan(monkeypatch):
    from agent_signals.adapters import dbt_views
    from agent_signals.config import Settings

    before = dbt_views.plan_key(Settings())
    monkeypatch.setattr(limits, "CORE_CAP", limits.CORE_CAP + 1)
    assert dbt_views.plan_key(Settings()) != before
