"""The `review` command group: the candidates screening held for review (signals of status pending, out of
every view until a reviewer decides), listed, approved or rejected through signals.review_approve and
signals.review_reject, the functions an application's own review page calls."""

from __future__ import annotations

import json

import click

from agent_signals.cli.options import settings_of

ACTOR = click.option(
    "--actor", default="reviewer", show_default=True, help="Who decides, recorded as the event's actor."
)


@click.group()
def review() -> None:
    """The candidates held for review: list them, approve or reject one."""


@review.command("list")
@click.option("--user", default=None, help="Only this user's signals.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of the text.")
@click.pass_context
def review_list(ctx: click.Context, user: str | None, as_json: bool) -> None:
    """List the signals waiting for review, oldest first: id, user, bucket, kind, scope, content, why it was
    held, and its evidence (message ids and redacted quotes)."""
    from agent_signals.stages.by_hand import reviews
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        rows = reviews.pending(conn, settings, user)
    if as_json:
        click.echo(json.dumps([
            {"signal_id": str(r.signal_id), "user_id": r.user_id, "agent_id": r.agent_id, "kind": r.kind,
             "tier": r.tier, "content": r.content, "reason": r.reason, "held_at": r.held_at.isoformat(),
             "replaces": r.replaces, "evidence": r.evidence}
            for r in rows
        ], ensure_ascii=False))  # fmt: skip
        return
    if not rows:
        click.echo("no signal is waiting for review" + (f" for {user}" if user else ""))
    for r in rows:
        scoped = "" if r.agent_id is None else f", agent {r.agent_id}"
        click.echo(
            f"{r.signal_id}  {r.user_id}  {r.tier}/{r.kind}{scoped}, held {r.held_at:%Y-%m-%d %H:%M}\n"
            f"    {r.content}\n    held: {r.reason}"
        )
        if r.replaces is not None:
            click.echo(f"    replaces: {r.replaces}")
        for e in r.evidence:
            click.echo(f'    evidence {e["conversation_id"]}:{e["message_id"]} "{e["quote"]}"')


@review.command("approve")
@click.argument("signal")
@ACTOR
@click.pass_context
def review_approve(ctx: click.Context, signal: str, actor: str) -> None:
    """Approve a signal waiting for review (SIGNAL: its id, or a unique start of it): it becomes active and
    is in the user's context when this returns (as contextual when the user's core is full)."""
    from agent_signals.stages.by_hand import reviews
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        signal_id, approved = reviews.approve(conn, settings, signal, actor)
    click.echo(
        f"approved {signal_id}: {approved.status}, {approved.tier}"
        + (f" ({approved.note})" if approved.note else "")
    )


@review.command("reject")
@click.argument("signal")
@ACTOR
@click.pass_context
def review_reject(ctx: click.Context, signal: str, actor: str) -> None:
    """Reject a signal waiting for review (SIGNAL: its id, or a unique start of it): never shown, and its
    text is never learned again."""
    from agent_signals.stages.by_hand import reviews
    from agent_signals.store import database

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        signal_id = reviews.reject(conn, settings, signal, actor)
    click.echo(f"rejected {signal_id}")
