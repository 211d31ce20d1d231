"""Parquet files of the context and analytics views (`agent-signals export`), written with polars.

Each view is streamed: store.export hands its rows over BATCH_ROWS at a time, each batch becomes a polars
DataFrame of the view's column types, and polars' streaming engine sinks them into one Parquet file (an IO
source plugin: pyarrow is not needed), so an export holds one batch, not the view. The file is written under a
temporary name in the target folder and renamed over DIR/<schema>.<view>.parquet once complete: a failed
export leaves the previous file, or none, never half a file. Every view of one export is read from one
snapshot of the database.

Column types: integers keep their width, double precision and real stay floats, numeric becomes float64,
text/uuid/json become strings, booleans stay booleans, timestamptz becomes a UTC timestamp (microseconds),
date a date, a pgvector column a list of float32; anything else its text form."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import psycopg
from polars.io.plugins import register_io_source

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.store import export

DTYPES: dict[str, pl.DataType] = {
    "int2": pl.Int16(),
    "int4": pl.Int32(),
    "int8": pl.Int64(),
    "float4": pl.Float32(),
    "float8": pl.Float64(),
    "bool": pl.Boolean(),
    "text": pl.String(),
    "timestamptz": pl.Datetime("us", "UTC"),
    "timestamp": pl.Datetime("us"),
    "date": pl.Date(),
    "float4[]": pl.List(pl.Float32()),
}
"""The polars type of each type store.export exports a column as."""


@dataclass(frozen=True)
class Written:
    view: str
    rows: int
    bytes: int
    path: Path


def schema_of(columns: tuple[export.Column, ...]) -> dict[str, pl.DataType]:
    return {c.name: DTYPES[c.type] for c in columns}


def writable(directory: Path) -> Path:
    """The folder, created if missing, once a file could be created in it; else the one-line error."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise AgentSignalsError(
            f"cannot write the export to {directory}: {exc.strerror or exc}",
            hint="give a folder you can write to (it is created if missing)",
        ) from None
    return directory


def export_views(
    conn: psycopg.Connection, settings: Settings, views: tuple[str, ...], directory: Path
) -> list[Written]:
    """Write each view (names checked by store.export.chosen_views) to DIRECTORY/<view>.parquet, all from one
    snapshot. Every view is checked to exist before any file is written."""
    writable(directory)
    with export.snapshot(conn):
        columns = {view: export.view_columns(conn, view) for view in views}
        return [write_view(conn, view, columns[view], directory) for view in views]


def write_view(
    conn: psycopg.Connection, view: str, columns: tuple[export.Column, ...], directory: Path
) -> Written:
    """One view into DIRECTORY/<view>.parquet, atomically (a temporary file renamed over it when complete)."""
    schema = schema_of(columns)
    rows = 0

    def batches(with_columns, predicate, n_rows, batch_size):  # polars' IO source: the whole view, in order
        nonlocal rows
        for batch in export.view_rows(conn, view, columns):
            rows += len(batch)
            yield pl.DataFrame(batch, schema=schema, orient="row")

    final = directory / f"{view}.parquet"
    fd, name = tempfile.mkstemp(dir=directory, prefix=f".{view}.", suffix=".parquet.tmp")
    os.close(fd)
    temporary = Path(name)
    try:
        source = register_io_source(batches, schema=schema, explain_name=view)
        source.sink_parquet(temporary, engine="streaming", sync_on_close="all")
        os.replace(temporary, final)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(directory)
    return Written(view, rows, final.stat().st_size, final)


def _sync_directory(directory: Path) -> None:
    """The rename made durable (POSIX: the folder's entry is flushed)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
