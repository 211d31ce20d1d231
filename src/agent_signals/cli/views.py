"""The `views` command group (rebuild the context and analytics views, their dbt docs) and `context`: a
user's block of context.user_context, ready to paste into a system prompt."""

from __future__ import annotations

import click

from agent_signals.cli.options import settings_of


@click.group()
def views() -> None:
    """Build the context and analytics views (dbt) by hand."""


@views.command("refresh")
@click.pass_context
def views_refresh(ctx: click.Context) -> None:
    """Rebuild the views for every user now (runs refresh only the users they changed)."""
    from datetime import UTC, datetime

    from agent_signals.adapters import dbt_views
    from agent_signals.store import database
    from agent_signals.store.context_views import clear_all_dirty
    from agent_signals.store.schema.migrate import check_current

    settings = settings_of(ctx)
    started = datetime.now(UTC)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = dbt_views.refresh(settings, None, full=True)
        clear_all_dirty(conn, started)
    click.echo(f"views rebuilt for all users in {result.seconds:.1f}s")


@views.command("docs")
@click.pass_context
def views_docs(ctx: click.Context) -> None:
    """Generate the dbt documentation site of the views (under the data folder)."""
    from agent_signals.adapters import dbt_views

    click.echo(f"dbt docs written to {dbt_views.docs(settings_of(ctx))}")


@click.command("context")
@click.argument("user")
@click.option("--summary/--no-summary", default=False, help="Also print the user's summary paragraph.")
@click.option(
    "--agent", default=None, help="The block one agent reads (context.agent_context): profile and agent."
)
@click.pass_context
def context_cmd(ctx: click.Context, user: str, summary: bool, agent: str | None) -> None:
    """Print a user's block from context.user_context (or context.agent_context with --agent), ready to paste
    into a system prompt."""
    from agent_signals.store import database
    from agent_signals.store.context_views import context_block, explain_missing, missing_context

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        block = context_block(conn, user, agent)
        if block is None:  # an unknown user or agent, a forgotten user, unflagged conversations, ...
            raise explain_missing(user, agent, missing_context(conn, user, agent))
    click.echo(block.markdown)
    if summary and block.summary:
        click.echo(f"\n{block.summary}")
