"""The `load` command: import a conversations file (JSON, NDJSON or Parquet), all or nothing."""

from __future__ import annotations

from pathlib import Path

import click

from agent_signals.cli.options import settings_of


@click.command("load")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "ndjson", "parquet"]),
    default=None,
    help="The file's format; by default its extension says (.json, .ndjson or .jsonl, .parquet).",
)
@click.pass_context
def load_cmd(ctx: click.Context, file: Path, fmt: str | None) -> None:
    """Import conversations from FILE (JSON, or NDJSON/Parquet streamed, one row per message), all or nothing;
    re-loading changes nothing."""
    from agent_signals.store import database
    from agent_signals.store.loading import load, load_rows
    from agent_signals.store.schema.migrate import check_current

    settings = settings_of(ctx)
    fmt = load_rows.format_of(file, fmt)
    data = load.read(file) if fmt == "json" else None
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = load.store(conn, data) if data is not None else load_rows.store_file(conn, file, fmt)
    click.echo(
        f"{file}: {result.conversations_new} new conversation(s), {result.conversations_changed} changed, "
        f"{result.messages_new} new message(s), {result.messages_unchanged} already loaded"
    )
