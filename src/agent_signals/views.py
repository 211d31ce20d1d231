"""The read path: builds the context views and the analyst models with dbt (the project in ``dbt/``).

``refresh(settings, run_id)`` rebuilds only the users a run touched (``ops.touched_users``); without a
run id, or with ``full=True``, it rebuilds every user. dbt runs in-process (``dbtRunner``); its target/ and
logs/ live under ``settings.data_dir / "dbt"``, outside the repository.
"""

from __future__ import annotations

import json
import os
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from psycopg.conninfo import conninfo_to_dict

from agent_signals import db
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError

ENV_PREFIX = "AGENT_SIGNALS_DBT_"
# Tests of the analyst models scan whole tables: only full builds run them.
FULL_BUILD_ONLY_TAG = "full_build_only"
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


def project_dir(settings: Settings) -> Path:
    return settings.project_dir / "dbt"


def dbt_dir(settings: Settings) -> Path:
    """Where dbt writes its target/ and logs/ (under the git-ignored data folder)."""
    return settings.data_dir / "dbt"


def connection_env(url: str) -> dict[str, str]:
    """The AGENT_SIGNALS_DBT_* variables dbt/profiles.yml reads, from a libpq URL or conninfo string."""
    params = conninfo_to_dict(url)
    host = params.get("host") or params.get("hostaddr") or "localhost"
    user = params.get("user") or os.environ.get("PGUSER") or "postgres"
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


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of the block, then restore the previous values."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _common_args(settings: Settings) -> list[str]:
    project = project_dir(settings)
    if not (project / "dbt_project.yml").is_file():
        raise ViewRefreshFailed(
            f"no dbt project at {project}",
            hint="AGENT_SIGNALS_PROJECT_DIR must name the folder that holds sql/, prompts/ and dbt/",
        )
    out = dbt_dir(settings)
    return [
        "--project-dir", str(project),
        "--profiles-dir", str(project),
        "--target-path", str(out / "target"),
        "--log-path", str(out / "logs"),
    ]  # fmt: skip


def _global_flags() -> list[str]:
    return ["--no-send-anonymous-usage-stats", "--quiet", "--no-use-colors", "--no-version-check"]


def _invoke(settings: Settings, args: list[str]):
    """Run one dbt command in-process with the project database's connection settings."""
    env = {
        **connection_env(db.database_url(settings)),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DO_NOT_TRACK": "1",
    }
    with warnings.catch_warnings():  # dbt 1.10 imports click APIs that click 8.2 deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        from dbt.cli.main import dbtRunner  # imported late: dbt takes a second to import

    with _LOCK, _environment(env):
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
    """Build the context views and the analyst models (``dbt build``) and test them.

    With ``run_id`` (and not ``full``), only the users in ``ops.touched_users`` for that run are rebuilt, and
    the per-user tests check only them. Without a run id every user is rebuilt; ``full`` also recreates the
    tables from scratch (``--full-refresh``). Raises ViewRefreshFailed when a model or a test fails: each
    model is replaced in one transaction, so readers keep the previous rows of a model that failed.
    """
    if run_id is not None and not isinstance(run_id, UUID):
        run_id = UUID(str(run_id))  # a malformed id raises ValueError here, never reaches the SQL
    args = ["build", *_global_flags(), *_common_args(settings)]
    if full:
        args.append("--full-refresh")
    elif run_id is not None:
        args += ["--vars", json.dumps({"run_id": str(run_id)})]
        args += ["--exclude", f"tag:{FULL_BUILD_ONLY_TAG}"]
    started = time.perf_counter()
    result = _invoke(settings, args)
    seconds = time.perf_counter() - started
    failures = _failures(result)
    if not result.success or failures:
        if result.exception is not None and not failures:
            failures = [f"{type(result.exception).__name__}: {' '.join(str(result.exception).split())[:500]}"]
        logs = dbt_dir(settings) / "logs" / "dbt.log"
        raise ViewRefreshFailed(
            "dbt build of the context views failed: " + ("; ".join(failures) or "unknown error"),
            hint=f"the previous views are still readable; see {logs}, fix the failing model, test or "
            "connection, then rerun (`agent-signals views refresh` rebuilds every user)",
        )
    models = tests = 0
    for node_result in result.result.results:
        resource_type = str(getattr(node_result.node.resource_type, "value", node_result.node.resource_type))
        if resource_type == "model":
            models += 1
        elif resource_type == "test":
            tests += 1
    return RefreshResult(seconds=seconds, models=models, tests=tests, full=full or run_id is None)


def docs(settings: Settings) -> Path:
    """Generate the dbt documentation site (catalog included); returns the folder holding index.html."""
    args = ["docs", "generate", *_global_flags(), *_common_args(settings)]
    result = _invoke(settings, args)
    if not result.success:
        detail = " ".join(str(result.exception or "see the dbt log").split())[:500]
        raise ViewRefreshFailed(
            f"dbt docs generate failed: {detail}",
            hint=f"see {dbt_dir(settings) / 'logs' / 'dbt.log'}",
        )
    return dbt_dir(settings) / "target"
