"""The store side of `agent-signals export`: which views can be exported, their columns and the type each is
exported as, and their rows streamed in batches of BATCH_ROWS through a server-side cursor (never the whole
view in memory), every view of one export read from one snapshot.

The relation names come only from VIEWS (a name given by a person is checked against it first) and reach SQL
as psycopg Identifiers; the casts come only from CASTS. No SQL is formatted from user input."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
from psycopg import sql

from agent_signals.errors import AgentSignalsError
from agent_signals.store.sqlfiles import query

# What dbt builds (dbt/models/context and dbt/models/analytics), in the order they are exported by default.
VIEWS = (
    "context.user_context",
    "context.agent_context",
    "context.user_signals",
    "analytics.run_costs",
    "analytics.signal_churn",
    "analytics.signals_by_kind_daily",
)

BATCH_ROWS = 5000
"""Rows fetched from the server (and handed to the writer) at a time: what an export holds in memory."""

# The types exported as they are (pg_type's name); the writer maps each to its own type.
KEPT = frozenset(
    {"int2", "int4", "int8", "float4", "float8", "bool", "text", "timestamptz", "timestamp", "date"}
)
# The others, cast in SQL to one of the kept types (or to float4[] for a pgvector column): (cast, exported as).
CASTS = {
    "numeric": ("double precision", "float8"),
    "varchar": ("text", "text"),
    "bpchar": ("text", "text"),
    "name": ("text", "text"),
    "uuid": ("text", "text"),
    "json": ("text", "text"),
    "jsonb": ("text", "text"),
    "vector": ("real[]", "float4[]"),
}
FALLBACK = ("text", "text")  # any other type: its text form


@dataclass(frozen=True)
class Column:
    name: str
    source_type: str  # pg_type's name in the database
    type: str  # what it is exported as: one of KEPT, or float4[]

    @property
    def cast(self) -> str | None:
        if self.source_type in KEPT:
            return None
        return CASTS.get(self.source_type, FALLBACK)[0]


def column(name: str, source_type: str) -> Column:
    exported = source_type if source_type in KEPT else CASTS.get(source_type, FALLBACK)[1]
    return Column(name, source_type, exported)


def chosen_views(names: str | None) -> tuple[str, ...]:
    """The views a comma-separated --views names (all of VIEWS when None), checked against VIEWS, in the
    order given, without repeats; an unknown name is an error that lists the known ones."""
    if names is None:
        return VIEWS
    chosen = tuple(dict.fromkeys(n.strip() for n in names.split(",") if n.strip()))
    if not chosen:
        raise AgentSignalsError("--views names no view", hint=f"the views: {', '.join(VIEWS)}")
    unknown = [n for n in chosen if n not in VIEWS]
    if unknown:
        raise AgentSignalsError(
            f"unknown view{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}",
            hint=f"the views that can be exported: {', '.join(VIEWS)}",
        )
    return chosen


@contextmanager
def snapshot(conn: psycopg.Connection) -> Iterator[None]:
    """A read-only repeatable-read transaction (timestamps in UTC) for the block: every view of an export is
    read from one snapshot. `conn` is in autocommit mode (store.database.session)."""
    with conn.transaction():
        conn.execute(query("export/export_snapshot"))
        yield


def view_columns(conn: psycopg.Connection, view: str) -> tuple[Column, ...]:
    """The view's columns in order; an error saying how to build it when it does not exist yet."""
    assert view in VIEWS, view  # chosen_views checked it
    rows = conn.execute(query("export/export_view_columns"), {"relation": view}).fetchall()
    if not rows:
        raise AgentSignalsError(
            f"{view} does not exist yet: the views were never built in this database",
            hint="run `agent-signals run` (or `agent-signals views refresh`) first",
        )
    return tuple(column(name, source_type) for name, source_type in rows)


def view_rows(conn: psycopg.Connection, view: str, columns: tuple[Column, ...]) -> Iterator[list[tuple]]:
    """The view's rows, BATCH_ROWS at a time (a server-side cursor), each value of its exported type. Inside
    `snapshot`."""
    assert view in VIEWS, view
    schema, name = view.split(".")
    select = sql.SQL("select {columns} from {relation}").format(
        columns=sql.SQL(", ").join(_expression(c) for c in columns),
        relation=sql.Identifier(schema, name),
    )
    batch = BATCH_ROWS
    with conn.cursor(name=f"export_{schema}_{name}") as cur:
        cur.itersize = batch
        cur.execute(select)
        while rows := cur.fetchmany(batch):
            yield rows


def _expression(c: Column) -> sql.Composable:
    if c.cast is None:
        return sql.Identifier(c.name)
    return sql.SQL("{}::{} as {}").format(sql.Identifier(c.name), sql.SQL(c.cast), sql.Identifier(c.name))
