"""The `db` command group: apply the migrations, print the database's URL."""

from __future__ import annotations

import click

from agent_signals.cli.options import settings_of


@click.group()
def db() -> None:
    """The database: migrations and connection URL."""


@db.command("migrate")
@click.pass_context
def db_migrate(ctx: click.Context) -> None:
    """Apply pending migrations, then the SQL function files if they changed (idempotent)."""
    from agent_signals.store import database
    from agent_signals.store.schema.migrate import migrate

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        applied = migrate(conn, settings)
    click.echo(f"applied {', '.join(applied)}" if applied else "schema is up to date")


@db.command("url")
@click.pass_context
def db_url(ctx: click.Context) -> None:
    """Print a libpq URL that psql accepts: psql "$(agent-signals db url)"."""
    from agent_signals.store import database

    click.echo(database.database_url(settings_of(ctx)))
