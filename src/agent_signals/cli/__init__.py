"""The `agent-signals` command line: the root group, which loads the Settings once, the command groups it
gathers (one module each: db, load, demo, run, evaluation, signals, review, set_aside, batches, views,
export; `mcp` beside `context` in views), and `main`, the entry point that turns every error a person can act on into one line and an exit
code. Heavy libraries are imported inside commands, after runtime defaults."""

from __future__ import annotations

import sys

import click

from agent_signals.cli import (
    batches,
    db,
    demo,
    evaluation,
    export,
    load,
    review,
    run,
    set_aside,
    signals,
    views,
)
from agent_signals.config import load_settings
from agent_signals.errors import AgentSignalsError
from agent_signals.store.schema.schema_errors import SCHEMA_MISSING, missing_relation

# the commands that never call a model: they run without its API key (the others check it when settings load)
MODEL_FREE = frozenset({"db", "load", "views", "context", "export", "set-aside", "forget"})


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agent-signals")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Learn short, durable, self-stated facts about users from flagged conversations."""
    from agent_signals.adapters.runtime import apply_defaults

    ctx.obj = load_settings(keys=ctx.invoked_subcommand not in MODEL_FREE)
    apply_defaults(ctx.obj)


for command in (
    db.db,
    load.load_cmd,
    demo.demo,
    run.run_cmd,
    run.backfill_cmd,
    run.serve_cmd,
    evaluation.eval_cmd,
    evaluation.replay_cmd,
    signals.signals,
    signals.forget_cmd,
    review.review,
    set_aside.set_aside_group,
    batches.batches,
    views.views,
    views.context_cmd,
    export.export_cmd,
    views.mcp_cmd,
):
    cli.add_command(command)


def main() -> None:
    try:
        cli.main(prog_name="agent-signals", standalone_mode=False)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.UsageError as exc:
        cmd = exc.ctx.command_path if exc.ctx else "agent-signals"
        click.echo(f"error: {exc.format_message()} (see `{cmd} --help`)", err=True)
        sys.exit(2)
    except AgentSignalsError as exc:
        click.echo(f"error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"hint: {exc.hint}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except SCHEMA_MISSING as exc:
        # a command reading tables of a database that was never migrated (or migrated by an older version)
        click.echo(f"error: {missing_relation(exc)}: the database is not migrated", err=True)
        click.echo("hint: run `agent-signals db migrate`", err=True)
        sys.exit(1)
