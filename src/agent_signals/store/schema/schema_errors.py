"""The database errors that mean the schema is missing (a database never migrated, or migrated by an older
version), so that the command line can say so in one line instead of a traceback."""

from __future__ import annotations

import psycopg

SCHEMA_MISSING = (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName)


def missing_relation(exc: psycopg.Error) -> str:
    """What the server said is missing (its primary message), e.g. `relation "ops.runs" does not exist`."""
    return exc.diag.message_primary or str(exc)
