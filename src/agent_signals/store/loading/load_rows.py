"""`agent-signals load` of the flat formats data teams export, NDJSON and Parquet: one row per message with
the columns in COLUMNS. The file is streamed with polars in batches of BATCH_ROWS rows (memory stays flat in
the file's size), each batch validated with vectorised expressions and COPYed into a staging table, all in
store.load.write's one transaction: what holds across batches (a conversation's columns agree between its
rows, a message appears once) is checked in SQL on the staging table, then the rows go through the same
checks and statements as a JSON file. Every refusal is one LoadError naming the file, the 1-based data row
and the column; nothing is loaded."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import polars as pl
import psycopg

from agent_signals.errors import LoadError
from agent_signals.store.loading.load import UNSTORABLE_HINT, LoadResult, write
from agent_signals.store.sqlfiles import query

Format = Literal["json", "ndjson", "parquet"]
FORMATS: dict[str, Format] = {".json": "json", ".ndjson": "ndjson", ".jsonl": "ndjson", ".parquet": "parquet"}
BATCH_ROWS = 50_000  # rows validated and COPYed at a time: what bounds the memory a load holds
ID_MAX = 200  # the JSON format's limit on ids (store.load.ConversationIn)
ROLES = ("user", "assistant", "tool", "system")
TEXT = ("conversation_id", "user_id", "channel", "agent_id", "message_id", "role", "content")
COLUMNS = (*TEXT[:4], "extract", *TEXT[4:], "created_at")  # the order of the staging table load_rows
OPTIONAL = ("channel", "agent_id")  # columns a file may leave out (null: no channel; the product's one agent)
IDS = ("conversation_id", "user_id", "message_id")
NOTHING = "nothing was loaded"

# ISO 8601 as data teams' tools write it: T or a space, seconds optional fraction, offset Z, +HH:MM or +HHMM.
WITH_ZONE = ("%Y-%m-%dT%H:%M:%S%.f%#z", "%Y-%m-%d %H:%M:%S%.f%#z", "%Y-%m-%dT%H:%M%#z")
WITHOUT_ZONE = ("%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M")


def format_of(path: Path, given: str | None = None) -> Format:
    """The format `--format` names, else the one the file's extension says."""
    if given:
        return given  # type: ignore[return-value]  # click.Choice(FORMATS.values())
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise LoadError(
            f"{path}: cannot tell the format from the extension {path.suffix or '(none)'!r}",
            hint="name the file .json, .ndjson, .jsonl or .parquet, or pass --format json|ndjson|parquet",
        )
    return found


def store_file(conn: psycopg.Connection, path: Path, fmt: Format) -> LoadResult:
    """Load a flat file in one transaction, all or nothing; re-loading it changes nothing."""
    if not path.is_file():
        raise LoadError(f"cannot read {path}: no such file")
    return write(conn, lambda: _stage(conn, path, fmt))


def _stage(conn: psycopg.Connection, path: Path, fmt: Format) -> None:
    conn.execute(query("load_rows/load_rows_table"))
    copy_sql = f"copy load_rows (row_number, {', '.join(COLUMNS)}) from stdin (format csv)"
    rows = 0
    for batch in batches(path, fmt):
        buffer = io.BytesIO()
        batch.write_csv(buffer, include_header=False)
        with conn.cursor().copy(copy_sql) as copy:
            copy.write(buffer.getbuffer())
        rows += batch.height
    if rows == 0:
        raise LoadError(f"{path}: no rows", hint=NOTHING)
    duplicate = conn.execute(query("load_rows/load_rows_duplicate")).fetchone()
    if duplicate:
        row, conversation_id, message_id, first = duplicate
        raise LoadError(
            f"{path}: row {row}: message_id: {message_id!r} of conversation {conversation_id!r} appears "
            f"twice (first at row {first})",
            hint=NOTHING,
        )
    differs = conn.execute(query("load_rows/load_rows_conversation_differs")).fetchone()
    if differs:
        row, conversation_id, column, first = differs
        raise LoadError(
            f"{path}: row {row}: {column}: differs from row {first} of the same conversation "
            f"{conversation_id!r} (a conversation's user_id, channel, agent_id and extract are the same on all its rows)",
            hint=NOTHING,
        )
    conn.execute(query("load_rows/load_rows_split"))


def batches(path: Path, fmt: Format) -> Iterator[pl.DataFrame]:
    """The file's rows in batches of at most BATCH_ROWS, validated and typed as load_rows takes them (a
    first column row_number, 1-based), streamed: only a batch is held at a time."""
    offset = 0
    try:
        for chunk in _ndjson_chunks(path) if fmt == "ndjson" else _parquet_chunks(path):
            yield _checked(path, chunk, offset)
            offset += chunk.height
    except pl.exceptions.PolarsError as exc:
        what = "NDJSON" if fmt == "ndjson" else "Parquet"
        raise LoadError(
            f"{path}: not valid {what}: {str(exc).strip().splitlines()[0]}", hint=NOTHING
        ) from None


def _ndjson_chunks(path: Path) -> Iterator[pl.DataFrame]:
    """BATCH_ROWS non-blank lines at a time, each parsed by polars: polars' own streaming reader runs ahead of
    a slower consumer (the COPY) and its buffered batches grow with the file."""
    schema = dict.fromkeys(COLUMNS, pl.String)
    with path.open("rb") as lines:
        while True:
            chunk = [line for line in itertools.islice(lines, BATCH_ROWS) if line.strip()]
            if not chunk:
                return
            yield pl.read_ndjson(io.BytesIO(b"".join(chunk)), schema=schema)


def _parquet_chunks(path: Path) -> Iterator[pl.DataFrame]:
    """A row group at most at a time (read whole by polars), cut into batches of BATCH_ROWS."""
    for raw in _scan_parquet(path).collect_batches(chunk_size=BATCH_ROWS):
        for start in range(0, raw.height, BATCH_ROWS):  # chunk_size is a hint: bound it here
            yield raw.slice(start, BATCH_ROWS)


def _scan_parquet(path: Path) -> pl.LazyFrame:
    """The Parquet file as a lazy frame of COLUMNS as text, as NDJSON is read (checked and typed by
    _checked, so that a bad value is named with its row); the file's own types are checked here, from its
    schema, before a row is read."""
    try:
        lazy = pl.scan_parquet(path)
        schema = lazy.collect_schema()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise LoadError(
            f"{path}: not valid Parquet: {str(exc).strip().splitlines()[0]}", hint=NOTHING
        ) from None
    columns = []
    for name in COLUMNS:
        dtype = schema.get(name)
        if dtype is None:
            if name not in OPTIONAL:
                raise LoadError(f"{path}: column {name}: missing", hint=NOTHING)
            columns.append(pl.lit(None, pl.String).alias(name))
        elif name == "extract":
            columns.append(_typed(path, name, dtype, (pl.Boolean,), "a boolean").cast(pl.String))
        elif name == "created_at":
            if isinstance(dtype, pl.Datetime) and dtype.time_zone is None:
                raise LoadError(
                    f"{path}: column created_at: a timestamp without a time zone",
                    hint=f"{NOTHING}; write it as a timestamp with a time zone (UTC), or as ISO 8601 text "
                    "with an offset",
                )
            kinds = (pl.Datetime, pl.String)
            expr = _typed(path, name, dtype, kinds, "a timestamp with a time zone or ISO 8601 text")
            columns.append(
                expr.dt.convert_time_zone("UTC").dt.to_string("%Y-%m-%dT%H:%M:%S%.f%:z")
                if isinstance(dtype, pl.Datetime)
                else expr
            )
        else:
            columns.append(_typed(path, name, dtype, (pl.String, pl.Categorical, pl.Enum), "text"))
    return lazy.select(columns)


def _typed(path: Path, name: str, dtype: pl.DataType, kinds: tuple, what: str) -> pl.Expr:
    if dtype == pl.Null or isinstance(dtype, kinds):  # a column of nulls only: refused row by row
        return pl.col(name) if isinstance(dtype, pl.Datetime) else pl.col(name).cast(pl.String)
    raise LoadError(f"{path}: column {name}: {dtype} where {what} is expected", hint=NOTHING)


def _timestamp(formats: tuple[str, ...], zone: bool) -> pl.Expr:
    col = pl.col("created_at")
    kwargs = {"time_zone": "UTC"} if zone else {}
    return pl.coalesce([col.str.to_datetime(f, strict=False, **kwargs) for f in formats])


def _checked(path: Path, batch: pl.DataFrame, offset: int) -> pl.DataFrame:
    """The batch typed as load_rows takes it, or the LoadError of its first bad row (in the order of the
    checks below when one row breaks several)."""
    created = _timestamp(WITH_ZONE, zone=True)
    checks: list[tuple[str, pl.Expr, str]] = [
        (name, pl.col(name).is_null(), "missing (null)") for name in COLUMNS if name not in OPTIONAL
    ]
    checks += [(name, pl.col(name).str.len_chars() == 0, "empty") for name in IDS]
    checks += [
        (name, pl.col(name).str.len_chars() > ID_MAX, f"longer than {ID_MAX} characters") for name in IDS
    ]
    checks += [
        ("extract", ~pl.col("extract").is_in(["true", "false"]), "not a boolean (true or false)"),
        ("role", ~pl.col("role").is_in(ROLES), f"not one of {', '.join(ROLES)}"),
        (
            "created_at",
            created.is_null() & _timestamp(WITHOUT_ZONE, zone=False).is_not_null(),
            "has no timezone offset (add Z or +HH:MM)",
        ),
        ("created_at", created.is_null(), "not an ISO 8601 timestamp with an offset"),
    ]
    checks += [
        (name, pl.col(name).str.contains("\x00", literal=True), "UNSTORABLE") for name in TEXT
    ]  # polars reads an unpaired surrogate escape of NDJSON as NUL; Parquet text is valid UTF-8
    flags = batch.select(
        [expr.fill_null(False).arg_max().alias(str(i)) for i, (_, expr, _) in enumerate(checks)]
        + [expr.fill_null(False).any().alias(f"any{i}") for i, (_, expr, _) in enumerate(checks)]
    ).row(0)
    failed = [(flags[i], i) for i in range(len(checks)) if flags[len(checks) + i]]
    if failed:
        index, which = min(failed)
        name, _, what = checks[which]
        where = f"{path}: row {offset + index + 1}: {name}"
        if what == "UNSTORABLE":
            value = batch[name][index]
            raise LoadError(
                f"{where}: contains a NUL character or an unpaired surrogate at position {value.index(chr(0))}",
                hint=UNSTORABLE_HINT,
            )
        raise LoadError(f"{where}: {what}", hint=NOTHING)
    return batch.select(
        pl.int_range(offset + 1, offset + batch.height + 1, dtype=pl.Int64).alias("row_number"),
        *TEXT[:4],
        pl.col("extract") == "true",
        *TEXT[4:],
        created,
    )
