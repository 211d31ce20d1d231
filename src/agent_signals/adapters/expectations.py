"""Data-quality gates with Great Expectations (ephemeral context, analytics off).

- Before apply: each shard's proposed actions are validated as one batch by the `proposals` suite; a
  failing row (one candidate) is not written and is recorded as a rejected action; the user's other
  candidates are written.
- After the writes: table-level expectations on PostgreSQL. Critical ones fail the run; warnings are
  recorded in the runs ledger. Each expectation reads only the users the run's view refresh took
  (ops.touched_users: whoever's signals changed since the last refresh, by the run, a user path or an
  operator; the trigger signals_mark_dirty marks them), through ops.run_users(run_id) and the indexes on
  user_id: a run's checks cost what its users cost, not the table. Users nobody changed
  cannot have broken an invariant their last check passed, with one exception: evidence deleted directly
  (not through a retraction, which marks the user) leaves an inferred signal without evidence unseen until
  its user changes; `check_tables(..., everyone=True)` reads every user.
"""

from __future__ import annotations

import logging
import threading
import warnings
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from uuid import UUID, uuid4

import polars as pl

from agent_signals.config import Settings
from agent_signals.core.actions import WRITTEN
from agent_signals.limits import CONTENT_MAX_CHARS, CORE_CAP
from agent_signals.store.sqlfiles import query

log = logging.getLogger(__name__)
_GX_LOCK = threading.Lock()


@cache
def _context() -> Any:
    import great_expectations as gx
    import pgvector.sqlalchemy  # noqa: F401  (else GX cannot reflect the vector column and fails silently)
    from great_expectations.data_context.types.base import ProgressBarsConfig

    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _proposals_suite(settings: Settings) -> Any:
    import great_expectations as gx

    ge = gx.expectations
    suite = gx.ExpectationSuite(name="proposals")
    for expectation in (
        ge.ExpectColumnValuesToBeInSet(column="action", value_set=list(WRITTEN)),
        ge.ExpectColumnValuesToBeInSet(column="tier", value_set=["core", "contextual"]),
        ge.ExpectColumnValuesToBeInSet(column="kind", value_set=list(settings.run.kinds)),
        ge.ExpectColumnValueLengthsToBeBetween(column="content", min_value=1, max_value=CONTENT_MAX_CHARS),
        ge.ExpectColumnValuesToMatchRegex(column="content", regex=r"\S"),
        # markup, template syntax and links are never a fact about a person: a sign of injected text
        ge.ExpectColumnValuesToNotMatchRegex(column="content", regex=r"[<>{}]|https?://"),
        ge.ExpectColumnValuesToBeBetween(column="evidence", min_value=1, max_value=5),
        ge.ExpectColumnValuesToNotBeNull(column="user_id"),
    ):
        suite.add_expectation(expectation)
    return suite


def gate_proposals(settings: Settings, proposals: pl.DataFrame) -> dict[str, dict[int, str]]:
    """Validate a shard's proposals (extract.proposals_frame) as one batch. Returns {user_id: {index of the
    proposal: reason}} for the candidates that must not be written (the first expectation each one fails)."""
    if proposals.is_empty():
        return {}
    import pandas as pd

    frame = pd.DataFrame(proposals.to_dict(as_series=False))  # GX reads pandas (polars' own needs pyarrow)
    with _GX_LOCK:  # one validation at a time in a process (shards in flight share the GX context)
        source = _context().data_sources.add_or_update_pandas("proposals")
        name = f"shard-{uuid4().hex}"
        asset = source.add_dataframe_asset(name=name)
        try:
            batch = asset.add_batch_definition_whole_dataframe("all").get_batch(
                batch_parameters={"dataframe": frame}
            )
            result = batch.validate(_proposals_suite(settings), result_format="COMPLETE")
        finally:
            source.delete_asset(name)  # one asset per validation (GX caches metrics by batch): none kept
    failed: dict[str, dict[int, str]] = {}
    for outcome in result.results:
        config = outcome.expectation_config
        name = f"{config.type}({config.kwargs.get('column')})"
        if _raised(outcome.exception_info):
            raise RuntimeError(f"expectation {name} could not run: {outcome.exception_info}")
        if outcome.success:
            continue
        for index in outcome.result.get("unexpected_index_list") or []:
            row = proposals.row(index if isinstance(index, int) else index["index"], named=True)
            failed.setdefault(row["user_id"], {}).setdefault(row["index"], f"quality gate: {name} failed")
    return failed


@dataclass
class TableCheck:
    name: str
    critical: bool
    sql_name: str  # a query (expectations/...) returning the offending rows ({batch}: the checked table)


TABLE_CHECKS = (
    TableCheck(f"at most {CORE_CAP} active inferred core per user", True, "expectations/expect_core_cap"),
    TableCheck(
        "no two active signals of a user with the same text in one scope",
        True,
        "expectations/expect_unique_active_text",
    ),
    TableCheck("every inferred signal has evidence", True, "expectations/expect_inferred_evidence"),
    TableCheck(
        "context views refreshed for every user this run changed", False, "expectations/expect_views_fresh"
    ),
    TableCheck(
        "summaries current for every user this run changed", False, "expectations/expect_summaries_current"
    ),
)


@dataclass
class TableReport:
    failed_critical: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def check_tables(settings: Settings, url: str, run_id: UUID, *, everyone: bool = False) -> TableReport:
    """Run the table-level expectations against PostgreSQL (one GX batch of signals.signals, each query
    restricted to the users `run_id`'s refresh took; `everyone`: every user, a whole-table check). One at a
    time in a process: two runs of one process (concurrent flow runs) would each replace the other's data
    source, and with it the asset of the other's batch (GX's LookupError)."""
    with _GX_LOCK:
        return _check_tables(settings, url, run_id, everyone)


# the scope of the expect_*.sql queries on user_id (ops.run_users: sql/functions/70_read_path.sql)
RUN_SCOPE = "= any(ops.run_users(%(run_id)s))"


def _scoped(sql: str, run_id: UUID, everyone: bool) -> str:
    """An expectation's query for the run's users, or for every user (its scope dropped)."""
    if everyone:
        sql = sql.replace(RUN_SCOPE, "is not null")  # `user_id = any(...)`: `user_id is not null`
    return sql.replace("%(run_id)s", f"'{run_id}'::uuid")


def _check_tables(settings: Settings, url: str, run_id: UUID, everyone: bool) -> TableReport:
    import great_expectations as gx

    context = _context()
    with warnings.catch_warnings():  # the generic SQL datasource is deliberate: it accepts socket URLs
        warnings.simplefilter("ignore")
        source = context.data_sources.add_or_update_sql("signals_db", connection_string=_sqlalchemy_url(url))
        asset = source.add_table_asset(name=f"signals-{run_id}", table_name="signals", schema_name="signals")
        batch = asset.add_batch_definition_whole_table("all").get_batch()
    suite = gx.ExpectationSuite(name="tables")
    for check in TABLE_CHECKS:
        if check.sql_name == "expectations/expect_summaries_current" and not settings.run.summaries:
            continue
        sql = _scoped(query(check.sql_name), UUID(str(run_id)), everyone)
        suite.add_expectation(
            gx.expectations.UnexpectedRowsExpectation(
                unexpected_rows_query=sql,
                description=check.name,
                severity="critical" if check.critical else "warning",
            )
        )
    report = TableReport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = batch.validate(suite, result_format="SUMMARY")
    for outcome in result.results:
        config = outcome.expectation_config
        if _raised(outcome.exception_info):
            raise RuntimeError(f"expectation {config.description!r} could not run: {outcome.exception_info}")
        if outcome.success:
            continue
        message = f"{config.description}: {outcome.result.get('observed_value')} offending row(s)"
        (report.failed_critical if config.severity == "critical" else report.warnings).append(message)
    return report


def _raised(info: dict | None) -> bool:
    """GX reports an expectation that could not run either at the top level or per metric: check both."""
    if not info:
        return False
    if "raised_exception" in info:
        return bool(info["raised_exception"])
    return any(isinstance(v, dict) and v.get("raised_exception") for v in info.values())


def _sqlalchemy_url(url: str) -> str:
    """A libpq URL or conninfo string in SQLAlchemy's psycopg 3 dialect (socket hosts kept as a query)."""
    from psycopg.conninfo import conninfo_to_dict
    from sqlalchemy.engine import URL

    parts = {k: str(v) for k, v in conninfo_to_dict(url).items()}
    host = parts.pop("host", None)
    extra = {k: v for k, v in parts.items() if k not in ("user", "password", "dbname", "port")}
    if host and host.startswith("/"):
        extra["host"], host = host, None
    return URL.create(
        "postgresql+psycopg",
        username=parts.get("user"),
        password=parts.get("password"),
        host=host,
        port=int(parts["port"]) if parts.get("port") else None,
        database=parts.get("dbname"),
        query=extra,
    ).render_as_string(hide_password=False)
