"""`agent-signals export DIR`: the context and analytics views as Parquet files for a lakehouse, one file per
view (DIR/<schema>.<view>.parquet), streamed out of PostgreSQL in bounded batches and replaced atomically."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agent_signals.cli.options import settings_of
from agent_signals.errors import AgentSignalsError

FORMATS = ("parquet",)


@click.command("export")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--format", "fmt", default="parquet", show_default=True, help=f"One of: {', '.join(FORMATS)}.")
@click.option(
    "--views",
    "names",
    default=None,
    help="Comma-separated views to export (default: context.user_context, context.agent_context, context.user_signals, "
    "analytics.run_costs, analytics.signal_churn, analytics.signals_by_kind_daily).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of a line per view.")
@click.pass_context
def export_cmd(ctx: click.Context, directory: Path, fmt: str, names: str | None, as_json: bool) -> None:
    """Write the context and analytics views to DIR/<schema>.<view>.parquet (DIR is created if missing), all
    from one snapshot; prints each view's rows, bytes and file."""
    from agent_signals.store.export import chosen_views

    if fmt not in FORMATS:
        raise AgentSignalsError(f"unknown export format {fmt!r}", hint=f"formats: {', '.join(FORMATS)}")
    views = chosen_views(names)

    from agent_signals.adapters import parquet
    from agent_signals.store import database
    from agent_signals.store.schema.migrate import check_current

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        check_current(conn, settings)
        written = parquet.export_views(conn, settings, views, directory)
    if as_json:
        click.echo(
            json.dumps(
                [{"view": w.view, "rows": w.rows, "bytes": w.bytes, "file": str(w.path)} for w in written]
            )
        )
        return
    for w in written:
        click.echo(f"{w.view}: {w.rows} rows, {w.bytes} bytes, {w.path}")
