"""The `signals` command group (list, add, edit, delete, undo a reconciliation, search) and `forget`: a
user's signals read and changed by hand."""

from __future__ import annotations

import click

from agent_signals.cli.describe import scope, validity
from agent_signals.cli.options import check_kind, settings_of


@click.group()
def signals() -> None:
    """Read, add, edit, delete and search signals; undo a reconciliation."""


@signals.command("list")
@click.option("--user", required=True, help="User id.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Include archived, ended, merged and deleted signals, and those held for review (pending, rejected).",
)
@click.pass_context
def signals_list(ctx: click.Context, user: str, show_all: bool) -> None:
    """List a user's signals: tier, origin, kind, mentions, last seen, scope, validity, content and evidence."""
    from agent_signals.store import database
    from agent_signals.store.signal_reads import list_signals

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        rows = list_signals(conn, user, include_inactive=show_all)
    if not rows:
        click.echo(f"{user} has no signals yet")
    for row in rows:
        state = "" if row.status == "active" else f" [{row.status}]"
        bucket = "manual" if row.origin == "manual" else row.tier
        scoped = "" if row.agent_id is None else f", {scope(row)}"
        # the time it held, when that says more than "since it was first said"
        told = row.valid_to is not None or row.valid_from not in (None, row.first_seen)
        held = f", holds {validity(row)}" if told else ""
        click.echo(
            f"- {row.content}{state}\n    {str(row.signal_id)[:8]}  {bucket}/{row.kind}, {row.origin}, "
            f"{row.mentions} mention(s), last seen {row.last_seen:%Y-%m-%d %H:%M}{scoped}{held}"
        )
        for e in row.evidence:
            click.echo(f'    evidence {e["conversation_id"]}:{e["message_id"]} "{e["quote"]}"')


@signals.command("add")
@click.option("--user", required=True, help="User id.")
@click.option("--kind", required=True, help="Kind of the signal (e.g. role, writing).")
@click.option("--agent", default=None, help="Only for this agent (default: the profile, for every agent).")
@click.argument("content")
@click.pass_context
def signals_add(ctx: click.Context, user: str, kind: str, content: str, agent: str | None) -> None:
    """Add one of the user's own signals (origin manual: never changed by the pipeline)."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database

    settings = settings_of(ctx)
    check_kind(settings, kind)
    with database.session(settings) as conn:
        signal_id = own_signals.add_signal(conn, settings, user, content, kind, agent)
    own_signals.embed_own_signals(settings, user)
    own_signals.refresh_context(settings, user)
    click.echo(f"added {signal_id} for {user}")


@signals.command("edit")
@click.option("--user", required=True, help="User id.")
@click.option("--kind", default=None, help="New kind (unchanged when omitted).")
@click.argument("signal")
@click.argument("content")
@click.pass_context
def signals_edit(ctx: click.Context, user: str, kind: str | None, signal: str, content: str) -> None:
    """Edit a signal (id or id prefix) as the user. Editing an inferred signal makes it the user's own."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database

    settings = settings_of(ctx)
    if kind is not None:
        check_kind(settings, kind)
    with database.session(settings) as conn:
        signal_id = own_signals.resolve_signal(conn, settings, user, signal)
        edited = own_signals.edit_signal(conn, settings, user, signal_id, content, kind)
    own_signals.embed_own_signals(settings, user)
    own_signals.refresh_context(settings, user)
    click.echo(f"edited {edited} for {user}")


@signals.command("delete")
@click.option("--user", required=True, help="User id.")
@click.argument("signal")
@click.pass_context
def signals_delete(ctx: click.Context, user: str, signal: str) -> None:
    """Delete a signal (id or id prefix) as the user; a deleted inferred signal is never learned again."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        signal_id = own_signals.resolve_signal(conn, settings, user, signal)
        own_signals.delete_signal(conn, settings, user, signal_id)
    own_signals.refresh_context(settings, user)
    click.echo(f"deleted {signal_id} for {user}")


@click.command("forget")
@click.option("--user", required=True, help="User id.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def forget_cmd(ctx: click.Context, user: str, yes: bool) -> None:
    """Remove everything derived about a user (signals, evidence, events, summaries, view rows)."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database
    from agent_signals.store.signal_reads import require_user

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        require_user(conn, user)
        if not yes:
            try:
                confirmed = click.confirm(f"Forget everything derived about {user}?", default=False)
            except click.exceptions.Abort:  # no input (EOF) or Ctrl-C: a no
                click.echo()  # end the prompt's line
                confirmed = False
            if not confirmed:
                click.echo(f"nothing was done: user {user} was not forgotten", err=True)
                raise click.exceptions.Abort  # exit 130
        removed = own_signals.forget_user(conn, settings, user)
    click.echo(
        f"forgot {user}: {removed} signal(s) and everything derived from them; ops.forgotten records it"
    )


@signals.command("undo")
@click.argument("event_id", type=int)
@click.pass_context
def signals_undo(ctx: click.Context, event_id: int) -> None:
    """Reverse a reconciliation merge or demotion (EVENT_ID from signals.events)."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        click.echo(own_signals.undo(conn, settings, event_id))


@signals.command("search")
@click.option("--user", default=None, help="Only this user's signals.")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.argument("text")
@click.pass_context
def signals_search(ctx: click.Context, user: str | None, limit: int, text: str) -> None:
    """Semantic search over active signals (embeddings, cosine similarity)."""
    from agent_signals.stages.by_hand import own_signals
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        rows = own_signals.search(conn, settings, text, user_id=user, limit=limit)
    if not rows:
        click.echo("no signals match")
    for row in rows:
        bucket = "manual" if row["origin"] == "manual" else row["tier"]
        click.echo(f"{row['similarity']:.3f}  {row['user_id']}  {bucket}/{row['kind']}  {row['content']}")
