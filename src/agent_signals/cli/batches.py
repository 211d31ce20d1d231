"""The `batches` command group (provider batch mode, docs/batch.md): list the provider batches not collected
yet, and ask the provider to cancel one. A run does the rest: it collects what a cancelled batch answered
and gives its other users back to pending."""

from __future__ import annotations

import json

import click

from agent_signals.cli.options import settings_of
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.store.ledger.batch_report import FoundBatch

LIST_HINT = "`agent-signals batches list` shows the batches not collected yet"


@click.group()
def batches() -> None:
    """The provider batches of batch mode: list them, cancel one."""


@batches.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of the table.")
@click.pass_context
def batches_list(ctx: click.Context, as_json: bool) -> None:
    """List the batches not collected yet: key, provider id, status, the provider's word, model, requests,
    users waiting, age in hours (marked `too old` past AGENT_SIGNALS_BATCH_WARN_AGE_S)."""
    from agent_signals.store import database
    from agent_signals.store.ledger.batch_report import batches_out

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        rows = batches_out(conn)
    if as_json:
        click.echo(json.dumps([
            {"batch_key": str(b.batch_key), "provider_batch_id": b.provider_batch_id, "status": b.status,
             "provider_status": b.provider_status, "model": b.model, "prompt_version": b.prompt_version,
             "requests": b.requests, "users_waiting": b.users_waiting, "age_h": round(b.age_s / 3600, 2),
             "too_old": b.too_old(settings)}
            for b in rows
        ]))  # fmt: skip
        return
    if not rows:
        click.echo("no batch is out")
        return
    header = ("batch", "provider id", "status", "provider says", "model", "requests", "users waiting",
              "age (h)")  # fmt: skip
    table = [
        (str(b.batch_key), b.provider_batch_id, b.status, b.provider_status, b.model, str(b.requests),
         str(b.users_waiting), f"{b.age_s / 3600:.2f}" + ("  too old" if b.too_old(settings) else ""))
        for b in rows
    ]  # fmt: skip
    for line in _table(header, table):
        click.echo(line)
    old = sum(1 for b in rows if b.too_old(settings))
    if old:
        click.echo(
            f"{old} batch(es) out longer than AGENT_SIGNALS_BATCH_WARN_AGE_S "
            f"({settings.batch.warn_age_s / 3600:g} h): `agent-signals batches cancel BATCH` gives their users back"
        )


@batches.command("cancel")
@click.argument("batch")
@click.option("--json", "as_json", is_flag=True, help="The provider's answer as one JSON object.")
@click.pass_context
def batches_cancel(ctx: click.Context, batch: str, as_json: bool) -> None:
    """Ask the provider to cancel a batch (BATCH: its key from `batches list`, or the provider's batch id).
    The next run collects what it answered and gives its other users back to pending."""
    from agent_signals.store import database
    from agent_signals.store.ledger.batch_report import find_batch, note_provider_status

    settings = settings_of(ctx)
    with database.session(settings) as conn:
        found = _cancellable(find_batch(conn, batch), batch)
        status = _cancel_at_provider(settings, found)
        note_provider_status(conn, found.batch_key, status)
    if as_json:
        click.echo(json.dumps({"batch_key": str(found.batch_key), "provider_batch_id": found.provider_batch_id,
                               "provider_status": status}))  # fmt: skip
        return
    click.echo(
        f"asked the provider to cancel batch {found.batch_key} ({found.provider_batch_id}): it says {status}. "
        "The next run applies what it answered and gives its other users back to pending"
    )


def _cancellable(found: FoundBatch | None, named: str) -> FoundBatch:
    """The batch, if the provider has it and has not finished it; else the one-line error that says why not."""
    if found is None:
        raise AgentSignalsError(f"no batch {named} in ops.batches", hint=LIST_HINT)
    if found.status == "preparing":
        raise AgentSignalsError(
            f"batch {found.batch_key} was never sent to the provider (status preparing): there is nothing to "
            "cancel there",
            hint="the run preparing it sends it in a moment: cancel it then"
            if found.run_running
            else "the next run finds it at the provider by its key and records it, or abandons it and gives its "
            "users back",
        )
    if found.status != "submitted":
        said = f", the provider said {found.provider_status}" if found.provider_status else ""
        raise AgentSignalsError(
            f"batch {found.batch_key} has already ended ({found.status}{said}): there is nothing to cancel",
            hint="the next run applies what it answered and gives its other users back to pending"
            if found.status == "ended"
            else LIST_HINT,
        )
    if found.provider_status in ("cancelling", "cancelled"):
        raise AgentSignalsError(
            f"batch {found.batch_key} is being cancelled already (the provider said {found.provider_status})",
            hint="the next run records how it ended, applies what it answered and gives its other users back",
        )
    return found


def _cancel_at_provider(settings: Settings, found: FoundBatch) -> str:
    """Ask the provider to cancel, reached with the batch's own model (its batch lives with that provider and
    key); returns the provider's word (cancelling, or cancelled)."""
    import asyncio

    from agent_signals.adapters import llm, provider_batches

    assert found.provider_batch_id is not None  # recorded with `submitted` (batch_submitted.sql)
    own = settings.replace(model=found.model)
    try:
        return asyncio.run(provider_batches.cancel(own, found.provider_batch_id)).status
    except llm.ModelUnavailable as exc:
        raise AgentSignalsError(
            f"the provider could not be asked to cancel batch {found.batch_key}: {exc}",
            hint="try again; the batch is still out",
        ) from exc


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell, two spaces apart."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
