"""The `views` command group (rebuild the context and analytics views, their dbt docs), `context`: a user's
block of context.user_context, ready to paste into a system prompt, and `mcp`: the MCP server agents read
and remember through (docs/agents.md), over stdio (the default: an agent runtime starts it as a subprocess)
or streamable HTTP (`--http`, a bearer token required)."""

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


@click.command("mcp")
@click.option(
    "--http",
    "over_http",
    is_flag=True,
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (--http).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (--http; 0: any free port, printed when it listens).")  # fmt: skip
@click.pass_context
def mcp_cmd(ctx: click.Context, over_http: bool, host: str, port: int) -> None:
    """Serve the MCP tools get_context, search_signals, remember and forget, connected as the least-privileged
    role agent_signals_mcp. Over HTTP every request needs `Authorization: Bearer <token>`
    (AGENT_SIGNALS_MCP_TOKEN, or the tokens of AGENT_SIGNALS_MCP_TOKENS_FILE, each limited to some users or
    agents)."""
    from agent_signals.mcp import server

    settings = settings_of(ctx)
    if not over_http:
        server.serve_stdio(settings)
        return
    from agent_signals.mcp.access import load_tokens

    tokens = load_tokens(settings)  # before anything starts: no token, no server
    server.serve_http(
        settings,
        tokens,
        host,
        port,
        lambda url: click.echo(f"agent-signals mcp: listening on {url}", err=True),
    )
