"""The `set-aside` command group: review and release the messages set aside after a user's failed
attempts."""

from __future__ import annotations

import click

from agent_signals.cli.options import settings_of


@click.group("set-aside")
def set_aside_group() -> None:
    """Review and release the messages set aside after a user's failed attempts."""


@set_aside_group.command("list")
@click.option("--user", default=None, help="Only this user's messages.")
@click.option("--all", "show_all", is_flag=True, help="Include released messages.")
@click.pass_context
def set_aside_list(ctx: click.Context, user: str | None, show_all: bool) -> None:
    """List the messages no run reads (id, user, conversation:message, attempts, when, why)."""
    from agent_signals.store import database
    from agent_signals.store.ledger import set_aside

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        rows = set_aside.list_set_aside(conn, user_id=user, include_released=show_all)
    if not rows:
        click.echo("no message is set aside")
    for row in rows:
        state = ""
        if row.released_at is not None:
            state = (
                f" [released {row.released_at:%Y-%m-%d %H:%M}{', read again' if row.read_again_at else ''}]"
            )
        click.echo(
            f"{row.set_aside_id}  {row.user_id}  {row.conversation_id}:{row.message_id}  {row.attempts} attempts, "
            f"{row.at:%Y-%m-%d %H:%M}{state}\n    {row.reason}"
        )


@set_aside_group.command("release")
@click.argument("ids", nargs=-1, type=int)
@click.option("--user", default=None, help="Every held message of this user.")
@click.option("--all", "everything", is_flag=True, help="Every held message.")
@click.pass_context
def set_aside_release(ctx: click.Context, ids: tuple[int, ...], user: str | None, everything: bool) -> None:
    """Release set-aside messages (IDS from `set-aside list`): the next run reads them again."""
    from agent_signals.store import database
    from agent_signals.store.ledger import set_aside

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        released = set_aside.release(conn, ids=ids, user_id=user, everything=everything)
    click.echo(f"released {len(released)} message(s); the next run reads them again")
