"""Fixtures: a real PostgreSQL (the embedded one, or DATABASE_URL's server), a fresh database per test cloned
from a migrated template, real Prefect flows under one test harness (whose server the command-line
processes of a test can share), the scripted model at the litellm seam.

Under pytest-xdist (`make test` runs `pytest -n`) each worker is its own checkout: its own data folder
(<data dir>/workers/<worker>: embedded PostgreSQL, dbt's target/, Prefect's home), so no two workers share
a file or a server (with DATABASE_URL set they share that server, each with its own databases)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import psycopg
import pytest
from hypothesis import settings as hypothesis_settings
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agent_signals.adapters.runtime import apply_defaults
from agent_signals.config import Settings

# The property tests are deterministic: the same examples on every run and machine (derandomize, no example
# database carried between runs), and never failed for a slow example (no deadline: a cold first call, or a
# busy machine, took an example past hypothesis's default 200 ms once and failed a unit run).
hypothesis_settings.register_profile("agent-signals", derandomize=True, database=None, deadline=None)
hypothesis_settings.load_profile("agent-signals")

WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # gw0, gw1, ... in a pytest-xdist worker; unset otherwise
if WORKER:
    os.environ["AGENT_SIGNALS_DATA_DIR"] = str(Settings().database.data_dir / "workers" / WORKER)
apply_defaults(Settings())  # before litellm / prefect are imported by the test modules

from agent_signals.store import database
from agent_signals.store.schema.migrate import migrate
from tests.fakes import SCRIPTED_MODEL, ScriptedModel, register

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = f"agent_signals_test_template_{os.getpid()}"


def _with_db(url: str, dbname: str) -> str:
    params = conninfo_to_dict(url)
    params["dbname"] = dbname
    return make_conninfo(**params)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first (a stable sort): pytest-xdist hands tests out in this order, so its workers end
    together instead of one finishing a long test alone. The live tests (a real local model) are skipped
    unless --live is given: `make test` and CI never start llama.cpp."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    _check_kinds(items)
    if not config.getoption("--live"):
        skip = pytest.mark.skip(reason="a real local model: run with --live (`make test-live`)")
        for item in items:
            if item.get_closest_marker("live"):
                item.add_marker(skip)


# what a test needs, one of which every test carries; `-m unit` runs the pure ones alone (under a minute)
KINDS = ("unit", "db", "flow", "live", "bench")
# the fixtures that start a server: a test marked unit may not use them
SERVERS = {
    "server_url",
    "template_db",
    "new_database",
    "unmigrated_database",
    "database_url",
    "conn",
    "settings",
    "prefect_harness",
    "prefect_api",
}


def _check_kinds(items: list[pytest.Item]) -> None:
    """Every test says what it needs (KINDS), and a unit test starts no server: a missing or wrong marker
    fails the collection, so `-m unit` stays fast and `-m "not db"` never reaches PostgreSQL."""
    wrong = []
    for item in items:
        kinds = {kind for kind in KINDS if item.get_closest_marker(kind)}
        uses = SERVERS & set(getattr(item, "fixturenames", ()))
        if not kinds:
            wrong.append(f"{item.nodeid}: no marker of {KINDS}")
        elif "unit" in kinds and uses:
            wrong.append(f"{item.nodeid}: marked unit but uses {sorted(uses)}")
    if wrong:
        raise pytest.UsageError("tests without the right kind marker:\n" + "\n".join(wrong))


@pytest.fixture(scope="session")
def server_url() -> str:
    """Admin URL of the server the tests use (embedded unless DATABASE_URL is set)."""
    return database.database_url(Settings())


@pytest.fixture(scope="session")
def template_db(server_url: str):
    admin = _with_db(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {}").format(sql.Identifier(TEMPLATE)))
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(TEMPLATE)))
    url = _with_db(server_url, TEMPLATE)
    with psycopg.connect(url, autocommit=True) as conn:
        migrate(conn, Settings(database_url=url))
    yield TEMPLATE
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(TEMPLATE)))


@pytest.fixture
def unmigrated_database(server_url: str):
    """The URL of an empty database that was never migrated (dropped after the test)."""
    admin = _with_db(server_url, "postgres")
    name = f"agent_signals_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    yield _with_db(server_url, name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def new_database(server_url: str, template_db: str):
    """A factory of fresh, migrated databases (dropped after the test); returns each one's URL."""
    admin = _with_db(server_url, "postgres")
    names: list[str] = []

    def create() -> str:
        name = f"agent_signals_test_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("create database {} template {}").format(
                    sql.Identifier(name), sql.Identifier(template_db)
                )
            )
        names.append(name)
        return _with_db(server_url, name)

    yield create
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in names:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def database_url(new_database, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh, migrated database for one test. DATABASE_URL points at it for the command line the test runs
    (a child process or click's runner: the CLI reads its settings from the environment, at its edge); the
    test's own flow runs and stages take `settings`."""
    url = new_database()
    monkeypatch.setenv("DATABASE_URL", url)
    return url


SCRIPTED_SETTINGS = {"model": SCRIPTED_MODEL, "max_retries": 1, "retry_backoff_s": 0, "summaries": False}
"""The settings of a test that uses the scripted model (fixture `scripted`); tests of summaries turn them on."""


@pytest.fixture
def settings_with(database_url: str, request: pytest.FixtureRequest):
    """A factory of this test's settings: the test's database, the scripted model's settings when the test
    uses `scripted`, then the overrides given (validated, as values from the environment are)."""
    base: dict[str, object] = {"database_url": database_url}
    if "scripted" in request.fixturenames:
        base |= SCRIPTED_SETTINGS

    def build(**overrides: object) -> Settings:
        return Settings(**(base | overrides))

    return build


@pytest.fixture
def settings(settings_with) -> Settings:
    """The settings the test passes to its flows and stages (settings_with() without overrides)."""
    return settings_with()


@pytest.fixture
def conn(database_url: str):
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


@pytest.fixture(scope="session")
def scripted_model() -> ScriptedModel:
    model = ScriptedModel()
    register(model)
    return model


@pytest.fixture
def scripted(scripted_model: ScriptedModel) -> ScriptedModel:
    """The scripted model, reset; the test's `settings` route the pipeline to it (SCRIPTED_SETTINGS). It
    answers like the offline model unless scripted."""
    scripted_model.reset()
    yield scripted_model
    scripted_model.reset()


@pytest.fixture(scope="session")
def prefect_harness():
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hostile-table",
        action="store_true",
        default=False,
        help="print the per-category leak table of each model run by tests/test_hostile_corpus.py",
    )
    parser.addoption(
        "--live",
        action="store_true",
        default=False,
        help="run the tests marked live: the pipeline on a real local model (llama.cpp + Gemma 3 270M)",
    )
    parser.addoption(
        "--live-model",
        default=str(ROOT / ".agent-signals" / "models" / "gemma-3-270m-q4_k_m.gguf"),
        help="the GGUF file the live tests serve (`make test-live` assembles it there)",
    )
    parser.addoption(
        "--live-data",
        default=str(ROOT.parent / "shared" / "data" / "msc-valid.json"),
        help="real conversations for the live tests (msc-valid's shape; not shipped): the demo's seed if absent",
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    from tests.hostile import TABLES

    if config.getoption("--hostile-table"):
        for text in config.stash.get(TABLES, []):
            terminalreporter.write_line("")
            for line in text.splitlines():
                terminalreporter.write_line(line)


@pytest.fixture
def prefect_api(prefect_harness, monkeypatch: pytest.MonkeyPatch) -> str:
    """The harness's Prefect API, exported as PREFECT_API_URL to the processes the test starts: their flows
    report to it instead of each starting Prefect's temporary server (about 5 s a process, 15 s with a new
    PREFECT_HOME). For tests of the command line; tests of Prefect's own start and stop (serve, interrupts,
    a run that must not start Prefect) leave PREFECT_API_URL unset."""
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value()
    monkeypatch.setenv("PREFECT_API_URL", url)
    return url
