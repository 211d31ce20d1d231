"""`agent-signals export`: the context and analytics views as Parquet files, read back with polars equal to
the views (rows, column names, types), streamed in batches, replaced atomically; and its one-line errors."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from uuid import UUID

import polars as pl
import psycopg
import pytest

from agent_signals.adapters import parquet
from agent_signals.cli.demo import seeding
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.flows.extract import extract_signals
from agent_signals.store import export

pytestmark = pytest.mark.db

ROOT = Path(__file__).resolve().parents[1]
USERS = 12
# each view's types in the database, as the Parquet file must hold them
EXPECTED_DTYPES = {
    "int2": pl.Int16(),
    "int4": pl.Int32(),
    "int8": pl.Int64(),
    "float8": pl.Float64(),
    "numeric": pl.Float64(),
    "bool": pl.Boolean(),
    "text": pl.String(),
    "uuid": pl.String(),
    "timestamptz": pl.Datetime("us", "UTC"),
    "date": pl.Date(),
}


def agent_signals(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_signals", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def built(conn: psycopg.Connection, settings: Settings) -> None:
    """Demo users through the real flow (the offline model): every view has rows."""
    seeding.seed(conn, users=USERS, messages_per_user=6)
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["status"] == "succeeded" and summary["failures"] == 0


def as_exported(value: object) -> object:
    """A value of `select *` as the export holds it (uuid as text, numeric as float)."""
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def assert_same_as_view(conn: psycopg.Connection, view: str, path: Path) -> int:
    frame = pl.read_parquet(path)
    cur = conn.execute(f"select * from {view}")  # view: one of export.VIEWS
    names = [d.name for d in cur.description]
    rows = cur.fetchall()
    types = dict(
        conn.execute(
            "select a.attname, t.typname from pg_attribute a join pg_type t on t.oid = a.atttypid"
            " where a.attrelid = %s::regclass and a.attnum > 0",
            [view],
        ).fetchall()
    )
    assert frame.columns == names
    assert {n: frame.schema[n] for n in names} == {n: EXPECTED_DTYPES[types[n]] for n in names}, view
    expected = sorted((tuple(as_exported(v) for v in row) for row in rows), key=repr)
    assert sorted(frame.rows(), key=repr) == expected, view
    return len(rows)


@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_each_view_read_back_from_parquet_is_the_view_in_batches_or_not(
    conn, settings, tmp_path, monkeypatch
):
    built(conn, settings)
    with psycopg.connect(settings.database.url, autocommit=True) as export_conn:
        whole = parquet.export_views(export_conn, settings, export.VIEWS, tmp_path / "whole")
        monkeypatch.setattr(export, "BATCH_ROWS", 7)
        sizes: list[int] = []
        real_rows = export.view_rows

        def counted(*args):
            for batch in real_rows(*args):
                sizes.append(len(batch))
                yield batch

        monkeypatch.setattr(export, "view_rows", counted)
        batched = parquet.export_views(export_conn, settings, export.VIEWS, tmp_path / "batched")

    assert [w.view for w in whole] == list(export.VIEWS)
    for one, other in zip(whole, batched, strict=True):
        assert one.path == tmp_path / "whole" / f"{one.view}.parquet" and one.bytes == one.path.stat().st_size
        assert one.rows == assert_same_as_view(conn, one.view, one.path)
        assert other.rows == assert_same_as_view(conn, other.view, other.path) == one.rows
    rows = {w.view: w.rows for w in whole}
    assert rows["context.user_signals"] > 7 and rows["context.user_context"] > 7  # more than one batch
    assert max(sizes) == 7 and sum(sizes) == sum(rows.values())
    assert rows["analytics.run_costs"] == 1
    assert sorted(p.name for p in (tmp_path / "whole").iterdir()) == sorted(
        f"{v}.parquet" for v in export.VIEWS
    )
    timestamps = pl.read_parquet(tmp_path / "batched" / "context.user_context.parquet")["refreshed_at"]
    assert isinstance(timestamps[0], datetime) and timestamps.dtype == pl.Datetime("us", "UTC")
    days = pl.read_parquet(tmp_path / "whole" / "analytics.signals_by_kind_daily.parquet")["day"]
    assert isinstance(days[0], date) and days.null_count() == 0


@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_failed_export_leaves_the_previous_file_and_no_half_file_and_a_new_one_replaces_it(
    conn, settings, tmp_path, monkeypatch
):
    built(conn, settings)
    view = "context.user_signals"
    first = parquet.export_views(conn, settings, (view,), tmp_path)[0]
    before = first.path.read_bytes()

    real_rows = export.view_rows

    def failing(*args):
        for n, batch in enumerate(real_rows(*args)):
            if n == 2:
                raise psycopg.OperationalError("the server went away")
            yield batch

    monkeypatch.setattr(export, "BATCH_ROWS", 3)
    monkeypatch.setattr(export, "view_rows", failing)
    with pytest.raises(psycopg.OperationalError):
        parquet.export_views(conn, settings, (view,), tmp_path)
    assert first.path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [f"{view}.parquet"]  # no temporary file left

    monkeypatch.setattr(export, "view_rows", real_rows)
    conn.execute("delete from context.user_signals where rank > 1")  # the view changes: a new export shows it
    again = parquet.export_views(conn, settings, (view,), tmp_path)[0]
    assert again.path == first.path and again.rows < first.rows
    assert again.rows == assert_same_as_view(conn, view, again.path)
    assert [p.name for p in tmp_path.iterdir()] == [f"{view}.parquet"]


def test_an_empty_view_is_a_file_with_its_columns_and_no_row(conn, settings, tmp_path):
    from agent_signals.adapters import dbt_views

    dbt_views.refresh(settings.replace(data_dir=tmp_path / "data"), None, full=True)
    written = parquet.export_views(conn, settings, export.VIEWS, tmp_path / "out")
    assert [w.rows for w in written] == [0] * len(export.VIEWS)
    for w in written:
        assert_same_as_view(conn, w.view, w.path)
        assert pl.read_parquet(w.path).columns  # the schema is in the file


def test_the_command_prints_a_line_per_view_and_its_errors_are_one_line(
    database_url, conn, settings, tmp_path
):
    from agent_signals.adapters import dbt_views

    missing = agent_signals("export", str(tmp_path / "out"))
    assert missing.returncode == 1, missing.stderr
    assert missing.stderr.splitlines() == [
        "error: context.user_context does not exist yet: the views were never built in this database",
        "hint: run `agent-signals run` (or `agent-signals views refresh`) first",
    ]
    assert not list((tmp_path / "out").iterdir())  # nothing written

    dbt_views.refresh(settings.replace(data_dir=tmp_path / "data"), None, full=True)
    ok = agent_signals("export", str(tmp_path / "out"), "--views", "analytics.run_costs,context.user_context")
    assert ok.returncode == 0, ok.stderr
    out = tmp_path / "out"
    assert [line.split(", ")[0] for line in ok.stdout.splitlines()] == [
        "analytics.run_costs: 0 rows",
        "context.user_context: 0 rows",
    ]
    assert ok.stdout.splitlines()[0].endswith(f" bytes, {out / 'analytics.run_costs.parquet'}")

    cases = {
        ("--views", "context.nope,analytics.run_costs"): [
            "error: unknown view: context.nope",
            f"hint: the views that can be exported: {', '.join(export.VIEWS)}",
        ],
        ("--format", "csv"): ["error: unknown export format 'csv'", "hint: formats: parquet"],
    }
    for args, lines in cases.items():
        result = agent_signals("export", str(out), *args)
        assert (result.returncode, result.stderr.splitlines()) == (1, lines), args

    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    for target in (a_file, a_file / "below"):
        result = agent_signals("export", str(target))
        assert result.returncode == 1, result.stderr
        error, hint = result.stderr.splitlines()
        assert error.startswith(f"error: cannot write the export to {target}: ")
        assert hint == "hint: give a folder you can write to (it is created if missing)"


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        (None, export.VIEWS),
        (
            " analytics.run_costs , context.user_context,analytics.run_costs",
            ("analytics.run_costs", "context.user_context"),
        ),
    ],
)
def test_views_are_chosen_from_the_known_ones_only(names, chosen):
    assert export.chosen_views(names) == chosen


@pytest.mark.parametrize(
    "names", ["", " , ", "public.users", "context.user_context;drop table x", "ops.runs"]
)
def test_any_other_view_name_is_refused(names):
    with pytest.raises(AgentSignalsError):
        export.chosen_views(names)


def test_every_exported_type_has_a_parquet_type():
    exported = set(export.KEPT) | {t for _, t in export.CASTS.values()} | {export.FALLBACK[1]}
    assert exported == set(parquet.DTYPES)


def test_each_type_is_kept_or_cast_to_its_nearest_parquet_type(conn, settings, tmp_path, monkeypatch):
    """Types the five views do not use yet (a pgvector column, real, smallint, json, timestamp without time
    zone) and one with no Parquet mapping (interval: its text form), nulls included."""
    conn.execute(
        """create table public.export_probe (
               v vector(3), r real, s smallint, j jsonb, t timestamp, i interval, n numeric(14, 6), b boolean)"""
    )
    conn.execute(
        """insert into public.export_probe values
               ('[1,2.5,-3]', 1.5, 7, '{"a": 1}', '2026-01-02 03:04:05.123456', '1 day', 0.000123, true),
               (null, null, null, null, null, null, null, null)"""
    )
    monkeypatch.setattr(export, "VIEWS", (*export.VIEWS, "public.export_probe"))
    (written,) = parquet.export_views(conn, settings, ("public.export_probe",), tmp_path)
    frame = pl.read_parquet(written.path)
    assert dict(frame.schema) == {
        "v": pl.List(pl.Float32()),
        "r": pl.Float32(),
        "s": pl.Int16(),
        "j": pl.String(),
        "t": pl.Datetime("us"),
        "i": pl.String(),
        "n": pl.Float64(),
        "b": pl.Boolean(),
    }
    assert frame.rows() == [
        (
            [1.0, 2.5, -3.0],
            1.5,
            7,
            '{"a": 1}',
            datetime(2026, 1, 2, 3, 4, 5, 123456),
            "1 day",
            0.000123,
            True,
        ),
        (None,) * 8,
    ]
