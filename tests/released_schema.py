"""Databases as agent-signals migrated them before the function files (sql/functions) existed, when each
migration defined its own functions, views and triggers; and a database's schema as text, to compare two."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg

from agent_signals.config import Settings
from agent_signals.store.schema.migrate import checksum, set_embedding_dimension, write_limits
from agent_signals.store.sqlfiles import query

# sql/migrations/*.sql as released before the function files (git show 64b1b4e:sql/migrations/...)
RELEASED: dict[str, str] = json.loads(
    (Path(__file__).parent / "data" / "migrations_before_function_files.json").read_text(encoding="utf-8")
)


def migrate_as_released(conn: psycopg.Connection, upto: str) -> None:
    """Migrate a fresh database up to version `upto` as the code before the function files did: each released
    migration applied and recorded with its checksum, then the limits and the embedding's dimension."""
    conn.execute(query("migrate/bootstrap_migrations"))
    for file_name, text in sorted(RELEASED.items()):
        version, _, name = file_name.removesuffix(".sql").partition("_")
        if version > upto:
            break
        conn.execute(text)
        record = {"version": version, "name": name, "checksum": checksum(text)}
        conn.execute(query("migrate/record_migration"), record)
    write_limits(conn)
    set_embedding_dimension(conn, Settings())


SCHEMAS = ("app", "source", "signals", "ops", "staging", "context", "analytics")
SCHEMA_TEXT = """
with ns as (select oid, nspname from pg_namespace where nspname = any(%(schemas)s))
select 'schema ' || nspname || ' owner ' || nspowner::regrole || ' acl ' || coalesce(nspacl::text, '')
from pg_namespace where nspname = any(%(schemas)s)
union all
select 'relation ' || n.nspname || '.' || c.relname || ' kind ' || c.relkind::text || c.relpersistence::text
       || ' options ' || coalesce(array_to_string(c.reloptions, ','), '') || ' owner ' || c.relowner::regrole
       || ' acl ' || coalesce(c.relacl::text, '') || ' comment ' || coalesce(obj_description(c.oid), '')
from pg_class c join ns n on n.oid = c.relnamespace
union all
select 'column ' || n.nspname || '.' || c.relname || ' #' || a.attnum || ' ' || a.attname || ' '
       || format_type(a.atttypid, a.atttypmod) || ' not null ' || a.attnotnull || ' default '
       || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
       || ' comment ' || coalesce(col_description(c.oid, a.attnum), '')
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join ns n on n.oid = c.relnamespace
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where a.attnum > 0
union all
select 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
       || ' deferrable ' || condeferrable || condeferred
from pg_constraint where connamespace in (select oid from ns)
union all
select 'index ' || pg_get_indexdef(i.indexrelid)
from pg_index i join pg_class c on c.oid = i.indexrelid join ns n on n.oid = c.relnamespace
union all
select 'trigger ' || pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text
from pg_trigger t join pg_class c on c.oid = t.tgrelid join ns n on n.oid = c.relnamespace
where not t.tgisinternal
union all
select 'function ' || pg_get_functiondef(p.oid) || ' owner ' || p.proowner::regrole
       || ' acl ' || coalesce(p.proacl::text, '')
from pg_proc p join ns n on n.oid = p.pronamespace
union all
select 'view ' || n.nspname || '.' || c.relname || ' ' || pg_get_viewdef(c.oid)
from pg_class c join ns n on n.oid = c.relnamespace where c.relkind in ('v', 'm')
union all
select 'default acl ' || defaclrole::regrole || ' ' || coalesce(defaclnamespace::regnamespace::text, '')
       || ' ' || defaclobjtype::text || ' ' || defaclacl::text
from pg_default_acl
union all
select 'extension ' || extname || ' ' || extversion from pg_extension
"""


def schema(conn: psycopg.Connection) -> list[str]:
    """Every object of the project's schemas as a line of text (sorted): relations and their columns,
    constraints, indexes, triggers, functions, views, owners, grants and comments."""
    return sorted(row[0] for row in conn.execute(SCHEMA_TEXT, {"schemas": list(SCHEMAS)}))
