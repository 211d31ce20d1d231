"""The `load` command: import a conversations file, all or nothing."""

from __future__ import annotations

from pathlib import Path

import click

from agent_signals.cli.options import settings_of


@click.command("load")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.pass_context
def load_cmd(ctx: click.Context, file: Path) -> None:
    """Import conversations from FILE.json, all or nothing; re-loading changes nothing."""
    from agent_signals.store import db as database
    from agent_signals.store import load
    from agent_signals.store.migrate import check_current

    settings = settings_of(ctx)
    data = load.read(file)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = load.store(conn, settings, data)
    click.echo(
        f"{file}: {result.conversations_new} new conversation(s), {result.conversations_changed} changed, "
        f"{result.messages_new} new message(s), {result.messages_unchanged} already loaded"
    )
