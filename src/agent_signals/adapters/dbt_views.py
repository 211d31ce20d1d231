"""The read path: builds the context views and the analyst models with dbt (the project in ``dbt/``).

``refresh(settings, run_id)`` rebuilds only the users a run touched (``ops.touched_users``); without a
run id, or with ``full=True``, it rebuilds every user. dbt runs in-process (``dbtRunner``); its target/ and
logs/ live under ``settings.database.data_dir / "dbt"``, outside the repository.

A run's refresh does not start dbt: dbt compiles the incremental context models and their data tests once
(var ``run_id: session``, scoped to the setting ``agent_signals.refresh_users``), the compiled SQL is cached
under the data folder by a hash of the dbt project and of the limits dbt gets as vars (limits.py, e.g.
``core_cap``), and each run executes it for its touched users in one transaction: delete their rows, insert
them again, run the tests; a failing test rolls everything back. A failure is narrowed down to the users
whose rows fail (their rows stay as they were; ``RefreshResult.failed``), so that one user's rows never keep
the others' out of date.
Its cost grows with the users touched, not with dbt's start-up (about a second) nor with all users.
``refresh_users`` runs the same SQL for the users named (a user's own change, before the command returns).
The dbt builds of a database (the first build of the views, ``views refresh``) go one at a time, under a
PostgreSQL advisory lock: a run that waited for another's first build refreshes its users on the views built.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import Conninfo

from agent_signals import limits
from agent_signals.adapters.runtime import environment
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.store import database
from agent_signals.store.sqlfiles import query

ENV_PREFIX = "AGENT_SIGNALS_DBT_"
# Tests of the analyst models scan whole tables: only full builds run them.
FULL_BUILD_ONLY_TAG = "full_build_only"
SESSION_SCOPE = "session"  # dbt var run_id that compiles the scope against agent_signals.refresh_users
PLAN_FORMAT = 1  # bump when the cached plan's shape changes
DEFAULT_PORT = "5432"

# dbt keeps process-wide state (flags, adapters, the environment we set): one invocation at a time.
_LOCK = threading.Lock()


class ViewRefreshFailed(AgentSignalsError):
    """dbt could not build or test the views; the previous views are still in place."""


@dataclass(frozen=True)
class RefreshResult:
    seconds: float
    models: int  # models built (ephemeral staging models are not counted: they are inlined)
    tests: int  # data tests run (all passed)
    full: bool  # every user was rebuilt
    failed: dict[str, str] = field(default_factory=dict)  # users whose rows failed (kept as they were): why


def project_dir(settings: Settings) -> Path:
    return settings.database.project_dir / "dbt"


def dbt_dir(settings: Settings) -> Path:
    """Where dbt writes its target/ and logs/ (under the git-ignored data folder)."""
    return settings.database.data_dir / "dbt"


def _libpq_default(keyword: str) -> str | None:
    """libpq's default for a connection keyword: its environment variable (PGUSER, ...) or built-in default
    (the user: the operating system's user name), as libpq applies it to the project's own connections."""
    for option in Conninfo.get_defaults():
        if option.keyword.decode() == keyword:
            return option.val.decode() if option.val is not None else None
    return None


def connection_env(url: str) -> dict[str, str]:
    """The AGENT_SIGNALS_DBT_* variables dbt/profiles.yml reads, from a libpq URL or conninfo string (the
    user it leaves out: libpq's default, so that dbt connects as the project's connections do)."""
    params = conninfo_to_dict(url)
    host = params.get("host") or params.get("hostaddr") or "localhost"
    user = params.get("user") or _libpq_default("user") or "postgres"
    dbname = params.get("dbname") or user
    env = {
        f"{ENV_PREFIX}HOST": str(host).split(",")[0],
        f"{ENV_PREFIX}PORT": str(params.get("port") or DEFAULT_PORT).split(",")[0],
        f"{ENV_PREFIX}USER": str(user),
        f"{ENV_PREFIX}PASSWORD": str(params.get("password") or ""),
        f"{ENV_PREFIX}DBNAME": str(dbname),
    }
    if params.get("sslmode"):
        env[f"{ENV_PREFIX}SSLMODE"] = str(params["sslmode"])
    return env


def _common_args(settings: Settings) -> list[str]:
    project = project_dir(settings)
    if not (project / "dbt_project.yml").is_file():
        raise ViewRefreshFailed(
            f"no dbt project at {project}",
            hint="AGENT_SIGNALS_PROJECT_DIR must name the folder that holds prompts/ and dbt/",
        )
    out = dbt_dir(settings)
    return [
        "--project-dir", str(project),
        "--profiles-dir", str(project),
        "--target-path", str(out / "target"),
        "--log-path", str(out / "logs"),
    ]  # fmt: skip


def _vars(**more: str) -> list[str]:
    """--vars of every dbt invocation: the shared limits (limits.by_name(), e.g. core_cap) and `more`."""
    return ["--vars", json.dumps({**limits.by_name(), **more})]


def _global_flags() -> list[str]:
    return ["--no-send-anonymous-usage-stats", "--quiet", "--no-use-colors", "--no-version-check"]


def _invoke(settings: Settings, args: list[str]):
    """Run one dbt command in-process with the project database's connection settings."""
    env = {
        **connection_env(database.database_url(settings)),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DO_NOT_TRACK": "1",
    }
    with warnings.catch_warnings():  # dbt 1.10 imports click APIs that click 8.2 deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        from dbt.cli.main import dbtRunner  # imported late: dbt takes a second to import

    with _LOCK, environment(env):
        return dbtRunner().invoke(args)


def _failures(result) -> list[str]:
    """One line per node that errored, failed or was skipped for it, from a dbt run's results."""
    lines: list[str] = []
    for node_result in getattr(result.result, "results", None) or []:
        status = str(getattr(node_result.status, "value", node_result.status)).lower()
        if status in ("error", "fail", "runtime error"):
            node = node_result.node
            message = " ".join(str(node_result.message or "").split())[:300]
            lines.append(f"{node.resource_type} {node.name}: {status}: {message}")
    return lines


def refresh(settings: Settings, run_id: UUID | None = None, *, full: bool = False) -> RefreshResult:
    """Build the context views and the analyst models and test them.

    With ``run_id`` (and not ``full``), only the users in ``ops.touched_users`` for that run are rebuilt and
    tested, by the compiled SQL (see the module's doc); the first time, when the views do not exist yet,
    by ``dbt build``. Without a run id every user is rebuilt with ``dbt build``; ``full`` also recreates the
    tables from scratch (``--full-refresh``). Raises ViewRefreshFailed when a model or a test fails; readers
    keep the previous rows (a run's touched users: see refresh_touched). The dbt builds of a database go
    one at a time (_one_build_at_a_time); a run that waited for another's first build refreshes its users on
    the views that build made.
    """
    if run_id is not None and not isinstance(run_id, UUID):
        run_id = UUID(str(run_id))  # a malformed id raises ValueError here, never reaches the SQL
    incremental = run_id is not None and not full
    if incremental and _views_exist(settings):
        return refresh_touched(settings, run_id)
    with _one_build_at_a_time(settings):
        if not (incremental and _views_exist(settings)):  # still not built by another run meanwhile
            return _build(settings, run_id, full)
    return refresh_touched(settings, run_id)


@contextmanager
def _one_build_at_a_time(settings: Settings) -> Iterator[None]:
    """Hold the database's view-build lock (lock_view_build.sql) for the block: it waits for another
    process's build to end."""
    with database.session(settings) as conn:
        conn.execute(query("dbt_views/lock_view_build"))
        yield  # closing the connection releases the lock


def _build(settings: Settings, run_id: UUID | None, full: bool) -> RefreshResult:
    """`dbt build` of the views (see refresh)."""
    args = ["build", *_global_flags(), *_common_args(settings)]
    if full:
        args += [*_vars(), "--full-refresh"]
    elif run_id is not None:
        args += [*_vars(run_id=str(run_id)), "--exclude", f"tag:{FULL_BUILD_ONLY_TAG}"]
    else:
        args += _vars()
    started = time.perf_counter()
    result = _invoke(settings, args)
    seconds = time.perf_counter() - started
    failures = _failures(result)
    if not result.success or failures:
        if result.exception is not None and not failures:
            failures = [f"{type(result.exception).__name__}: {' '.join(str(result.exception).split())[:500]}"]
        raise _build_failed(
            "dbt build of the context views failed: " + ("; ".join(failures) or "unknown error"), settings
        )
    models = tests = 0
    for node_result in result.result.results:
        resource_type = str(getattr(node_result.node.resource_type, "value", node_result.node.resource_type))
        if resource_type == "model":
            models += 1
        elif resource_type == "test":
            tests += 1
    return RefreshResult(seconds=seconds, models=models, tests=tests, full=full or run_id is None)


def _build_failed(message: str, settings: Settings) -> ViewRefreshFailed:
    logs = dbt_dir(settings) / "logs" / "dbt.log"
    return ViewRefreshFailed(
        message,
        hint=f"the previous views are still readable; see {logs}, fix the failing model, test or "
        "connection, then rerun (`agent-signals views refresh` rebuilds every user)",
    )


def _views_exist(settings: Settings) -> bool:
    with database.session(settings) as conn:
        return bool(conn.execute(query("dbt_views/context_views_exist")).fetchone()[0])


# --- the compiled refresh of a run's touched users ---------------------------------------------------


@dataclass(frozen=True)
class CompiledNode:
    name: str
    sql: str
    relation: str | None = None  # models: the relation dbt builds ("db"."schema"."name")
    severity: str = "error"  # tests: error (fails the refresh) or warn


@dataclass(frozen=True)
class RefreshPlan:
    key: str
    models: tuple[CompiledNode, ...]  # the incremental context models, in build order
    tests: tuple[CompiledNode, ...]  # their data tests (full-build-only tests excluded)


def plan_key(settings: Settings) -> str:
    """Hash of what the compiled SQL depends on: the dbt project's files, the vars of the shared limits and
    dbt's version (the plan names relations without their database, so one plan serves every database of a
    server)."""
    from dbt.version import __version__ as dbt_version

    digest = hashlib.sha256(f"{PLAN_FORMAT}:{dbt_version}".encode())
    digest.update(json.dumps(limits.by_name(), sort_keys=True).encode() + b"\0")
    project = project_dir(settings)
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if path.is_file() and relative.parts[0] not in ("target", "logs", "dbt_packages"):
            digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def refresh_plan(settings: Settings) -> RefreshPlan:
    """The compiled refresh SQL, from the cache or compiled now by dbt (a few seconds, once per project
    version and database). The views must exist: dbt compiles incremental SQL only for existing tables."""
    key = plan_key(settings)
    cached = dbt_dir(settings) / "refresh-plans" / f"{key}.json"
    if cached.is_file():
        data = json.loads(cached.read_text())
        return RefreshPlan(
            key,
            tuple(CompiledNode(**n) for n in data["models"]),
            tuple(CompiledNode(**n) for n in data["tests"]),
        )
    plan = _compile_plan(settings, key)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(
        json.dumps({"models": [n.__dict__ for n in plan.models], "tests": [n.__dict__ for n in plan.tests]})
    )
    partial.replace(cached)  # atomic: another process compiling the same plan writes the same file
    return plan


def _compile_plan(settings: Settings, key: str) -> RefreshPlan:
    target = dbt_dir(settings) / f"compile-{key}"
    args = ["compile", *_global_flags(), *_common_args(settings), "--target-path", str(target)]
    args += ["--select", "context", "--exclude", f"tag:{FULL_BUILD_ONLY_TAG}"]
    args += _vars(run_id=SESSION_SCOPE)
    result = _invoke(settings, args)
    if not result.success:
        detail = " ".join(str(result.exception or "; ".join(_failures(result)) or "see the dbt log").split())
        raise _build_failed(f"dbt compile of the context views failed: {detail[:500]}", settings)
    database_prefix = (
        '"' + connection_env(database.database_url(settings))[ENV_PREFIX + "DBNAME"].replace('"', '""') + '".'
    )

    def local(text: str) -> str:  # "db"."schema"."name" -> "schema"."name": the plan fits any database
        return text.replace(database_prefix, "")

    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    models = {
        node_id: node
        for node_id, node in nodes.items()
        if node["resource_type"] == "model" and node["config"].get("materialized") == "incremental"
        and node.get("compiled_code")
    }  # fmt: skip
    order: list[str] = []

    def visit(node_id: str) -> None:
        if node_id in models and node_id not in order:
            for parent in models[node_id]["depends_on"]["nodes"]:
                visit(parent)
            order.append(node_id)

    for node_id in sorted(models):
        visit(node_id)
    for node_id in order:
        if "agent_signals.refresh_users" not in models[node_id]["compiled_code"]:
            raise _build_failed(
                f"{node_id} did not compile as an incremental refresh of touched users", settings
            )
    tests = [
        CompiledNode(node["name"], local(node["compiled_code"]), severity=str(node["config"].get("severity", "error")).lower())
        for node_id, node in sorted(nodes.items())
        if node["resource_type"] == "test" and node.get("compiled_code")
        and any(parent in models for parent in node["depends_on"]["nodes"])
    ]  # fmt: skip
    return RefreshPlan(
        key,
        tuple(
            CompiledNode(
                models[n]["name"], local(models[n]["compiled_code"]), local(models[n]["relation_name"])
            )
            for n in order
        ),
        tuple(tests),
    )


def refresh_touched(settings: Settings, run_id: UUID) -> RefreshResult:
    """Rebuild and test the touched users of one run with the compiled plan, in one transaction. When that
    fails, the users are refreshed again in halves, down to each user whose rows fail: those are returned in
    `failed` (their rows stay as they were) and the others are refreshed. When every user fails alone too,
    the fault is not theirs (a model, the database): raises ViewRefreshFailed, as a single build would."""
    try:
        return _refresh_scope(settings, {"run_id": str(run_id), "user_ids": None})
    except ViewRefreshFailed as whole:
        started = time.perf_counter()
        users = _touched_users(settings, run_id)
        failed: dict[str, str] = {}
        _isolate(settings, users, failed)
        if len(failed) == len(users):
            raise whole from None
        plan = refresh_plan(settings)
        return RefreshResult(time.perf_counter() - started, len(plan.models), len(plan.tests), False, failed)


def _isolate(settings: Settings, users: list[str], failed: dict[str, str]) -> None:
    """Refresh `users` together; on failure each half again, down to the users whose rows fail alone."""
    try:
        _refresh_scope(settings, {"run_id": None, "user_ids": users})
    except ViewRefreshFailed as exc:
        if len(users) == 1:
            failed[users[0]] = exc.message
            return
        half = len(users) // 2
        _isolate(settings, users[:half], failed)
        _isolate(settings, users[half:], failed)


def _touched_users(settings: Settings, run_id: UUID) -> list[str]:
    with database.session(settings) as conn:
        return [row[0] for row in conn.execute(query("dbt_views/touched_users"), {"run_id": run_id})]


def refresh_users(settings: Settings, user_ids: list[str]) -> RefreshResult | None:
    """Rebuild and test these users' rows of the context views now (the compiled plan, one transaction),
    without a run: what a user's own change calls before it returns. None when the views do not exist yet
    (the first run builds them)."""
    if not _views_exist(settings):
        return None
    return _refresh_scope(settings, {"run_id": None, "user_ids": list(user_ids)})


def _refresh_scope(settings: Settings, scope: dict) -> RefreshResult:
    plan = refresh_plan(settings)
    started = time.perf_counter()
    with database.session(settings) as conn:
        try:
            with conn.transaction():
                _execute_plan(conn, settings, plan, scope)
        except psycopg.Error as exc:
            raise _build_failed(
                f"refresh of the context views failed: {' '.join(str(exc).split())[:500]}", settings
            ) from exc
    return RefreshResult(time.perf_counter() - started, len(plan.models), len(plan.tests), full=False)


def _execute_plan(conn: psycopg.Connection, settings: Settings, plan: RefreshPlan, scope: dict) -> None:
    conn.execute(query("dbt_views/refresh_scope_run"), scope)
    for model in plan.models:
        relation = sql.SQL(model.relation or "")
        columns = [
            row[0] for row in conn.execute(query("dbt_views/relation_columns"), {"relation": model.relation})
        ]
        column_list = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
        conn.execute(query("dbt_views/refresh_lock_model"), {"relation": model.relation})
        conn.execute(sql.SQL(query("dbt_views/refresh_delete_touched")).format(relation=relation))
        try:
            conn.execute(
                sql.SQL(query("dbt_views/refresh_insert_model")).format(
                    relation=relation, columns=column_list, model=sql.SQL(model.sql)
                )
            )
        except psycopg.Error as exc:
            raise _build_failed(f"model {model.name}: {' '.join(str(exc).split())[:500]}", settings) from exc
    failed = []
    for test in plan.tests:
        count = conn.execute(
            sql.SQL(query("dbt_views/refresh_count_failures")).format(test=sql.SQL(test.sql))
        ).fetchone()[0]
        if count and test.severity == "error":
            failed.append(f"test {test.name}: {count} failing rows")
    if failed:
        raise _build_failed("tests of the context views failed: " + "; ".join(failed), settings)


def docs(settings: Settings) -> Path:
    """Generate the dbt documentation site (catalog included); returns the folder holding index.html."""
    args = ["docs", "generate", *_global_flags(), *_common_args(settings), *_vars()]
    result = _invoke(settings, args)
    if not result.success:
        detail = " ".join(str(result.exception or "see the dbt log").split())[:500]
        raise ViewRefreshFailed(
            f"dbt docs generate failed: {detail}",
            hint=f"see {dbt_dir(settings) / 'logs' / 'dbt.log'}",
        )
    return dbt_dir(settings) / "target"
