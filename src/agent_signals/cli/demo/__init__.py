"""The `demo` command group: the quickstart (migrate, seed, run once, print a sample user) and `demo seed`."""

from __future__ import annotations

import click

from agent_signals.cli.db import db_migrate
from agent_signals.cli.demo.synthetic import SHOWCASE_USER
from agent_signals.cli.options import settings_of
from agent_signals.cli.run import run_cmd
from agent_signals.cli.signals import signals_list
from agent_signals.config import Settings


@click.group("demo", invoke_without_command=True)
@click.option("--users", default=200, show_default=True, type=click.IntRange(1, 1_000_000))
@click.pass_context
def demo(ctx: click.Context, users: int) -> None:
    """Migrate, seed demo conversations, run the pipeline once, print the summary and a sample user."""
    if ctx.invoked_subcommand is not None:
        return
    ctx.invoke(db_migrate)
    ctx.invoke(demo_seed, users=users, seed=7, messages_per_user=10)
    _seed_showcase(settings_of(ctx))
    summary = ctx.invoke(run_cmd, kind="manual")
    sample = _sample_user(settings_of(ctx))
    if sample and summary:
        click.echo(f"\nSignals of {sample} (agent-signals signals list --user {sample}):")
        ctx.invoke(signals_list, user=sample, show_all=False)
        click.echo(
            f"\nA fact that ended and one said to the writer agent only (signals list --user {SHOWCASE_USER} --all):"
        )
        ctx.invoke(signals_list, user=SHOWCASE_USER, show_all=True)


@demo.command("seed")
@click.option("--users", required=True, type=click.IntRange(1, 1_000_000), help="Number of demo users.")
@click.option("--seed", default=7, show_default=True, help="Random seed: same seed, same data.")
@click.option("--messages-per-user", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.pass_context
def demo_seed(ctx: click.Context, users: int, seed: int, messages_per_user: int) -> None:
    """Write deterministic synthetic conversations for N users (idempotent)."""
    from agent_signals.cli.demo.seeding import seed as seed_users
    from agent_signals.store import database
    from agent_signals.store.schema.migrate import check_current

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = seed_users(conn, users=users, seed=seed, messages_per_user=messages_per_user)
    click.echo(
        f"seeded {users} demo user(s): {result.conversations_new} new conversation(s), "
        f"{result.messages_new} new message(s)"
    )


def _seed_showcase(settings: Settings) -> None:
    from agent_signals.cli.demo.seeding import seed_showcase
    from agent_signals.store import database

    with database.session(settings) as conn:
        seed_showcase(conn)


def _sample_user(settings: Settings) -> str | None:
    from agent_signals.store import database
    from agent_signals.store.signal_reads import sample_user

    with database.session(settings) as conn:
        return sample_user(conn)
