"""The SQL of the package, in agent_signals/sql/ (package data, found wherever the package is installed):
each statement the store runs is a file of queries/, in the folder of the module that runs it (shared/: run
by several); migrations/ and functions/ are read by store/schema/migrate.py."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

SQL: Traversable = files("agent_signals") / "sql"


@cache
def query(name: str) -> str:
    """The text of sql/queries/NAME.sql, NAME being `module/statement` (named parameters in psycopg's
    %(name)s style); read once per process."""
    return (SQL / "queries" / f"{name}.sql").read_text(encoding="utf-8")


def sql_files(folder: str) -> list[tuple[str, str]]:
    """(file name, text) of each .sql file of sql/FOLDER, in the order of their names."""
    found = [entry for entry in (SQL / folder).iterdir() if entry.name.endswith(".sql")]
    return [(entry.name, entry.read_text(encoding="utf-8")) for entry in sorted(found, key=lambda e: e.name)]
