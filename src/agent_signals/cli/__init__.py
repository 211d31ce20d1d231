"""The `agent-signals` command line. Heavy libraries are imported inside commands, after runtime defaults."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import psycopg

from agent_signals.config import Settings, load_settings
from agent_signals.errors import AgentSignalsError, UnknownUser


def _settings(ctx: click.Context) -> Settings:
    return ctx.find_root().obj


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agent-signals")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Learn short, durable, self-stated facts about users from flagged conversations."""
    from agent_signals.adapters.runtime import apply_defaults

    ctx.obj = load_settings()
    apply_defaults(ctx.obj)


@cli.group()
def db() -> None:
    """The database: migrations and connection URL."""


@db.command("migrate")
@click.pass_context
def db_migrate(ctx: click.Context) -> None:
    """Apply pending migrations from sql/migrations (idempotent)."""
    from agent_signals.store import db as database
    from agent_signals.store.migrate import migrate

    settings = _settings(ctx)
    with database.session(settings) as conn:
        applied = migrate(conn, settings)
    click.echo(f"applied {', '.join(applied)}" if applied else "schema is up to date")


@db.command("url")
@click.pass_context
def db_url(ctx: click.Context) -> None:
    """Print a libpq URL that psql accepts: psql "$(agent-signals db url)"."""
    from agent_signals.store import db as database

    click.echo(database.database_url(_settings(ctx)))


@cli.command("load")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.pass_context
def load_cmd(ctx: click.Context, file: Path) -> None:
    """Import conversations from FILE.json, all or nothing; re-loading changes nothing."""
    from agent_signals.store import db as database
    from agent_signals.store import load
    from agent_signals.store.migrate import check_current

    settings = _settings(ctx)
    data = load.read(file)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = load.store(conn, settings, data)
    click.echo(
        f"{file}: {result.conversations_new} new conversation(s), {result.conversations_changed} changed, "
        f"{result.messages_new} new message(s), {result.messages_unchanged} already loaded"
    )


@cli.group("demo", invoke_without_command=True)
@click.option("--users", default=200, show_default=True, type=click.IntRange(1, 1_000_000))
@click.pass_context
def demo(ctx: click.Context, users: int) -> None:
    """Migrate, seed demo conversations, run the pipeline once, print the summary and a sample user."""
    if ctx.invoked_subcommand is not None:
        return
    ctx.invoke(db_migrate)
    ctx.invoke(demo_seed, users=users, seed=7, messages_per_user=10)
    summary = ctx.invoke(run_cmd, kind="manual")
    sample = _sample_user(_settings(ctx))
    if sample and summary:
        click.echo(f"\nSignals of {sample} (agent-signals signals list --user {sample}):")
        ctx.invoke(signals_list, user=sample, show_all=False)


@demo.command("seed")
@click.option("--users", required=True, type=click.IntRange(1, 1_000_000), help="Number of demo users.")
@click.option("--seed", default=7, show_default=True, help="Random seed: same seed, same data.")
@click.option("--messages-per-user", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.pass_context
def demo_seed(ctx: click.Context, users: int, seed: int, messages_per_user: int) -> None:
    """Write deterministic synthetic conversations for N users (idempotent)."""
    from agent_signals.store import db as database
    from agent_signals.store.demo import seed as seed_users
    from agent_signals.store.migrate import check_current

    settings = _settings(ctx)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = seed_users(conn, settings, users=users, seed=seed, messages_per_user=messages_per_user)
    click.echo(
        f"seeded {users} demo user(s): {result.conversations_new} new conversation(s), "
        f"{result.messages_new} new message(s)"
    )


@cli.command("run")
@click.option(
    "--kind",
    type=click.Choice(["manual", "scheduled"]),
    default="manual",
    show_default=True,
    help="How the run is recorded in ops.runs.",
)
@click.pass_context
def run_cmd(ctx: click.Context, kind: str) -> dict:
    """Run the extraction flow once now (Prefect, ephemeral mode when no PREFECT_API_URL is set).

    With nothing to do (no new message, nothing to embed, retract, archive, summarize or refresh) the run is
    recorded without starting Prefect. SIGINT or SIGTERM stops it within seconds: exit 130 or 143."""
    from agent_signals.stages import idle

    started = time.monotonic()
    summary = idle.record_if_idle(_settings(ctx), kind)
    if summary is None:
        from agent_signals.flows.extract import extract_signals

        summary = _run_flow(extract_signals(kind=kind, settings=_settings(ctx)))
    _print_summary(summary, time.monotonic() - started)
    _fail_if_nothing_worked(summary)
    return summary


def _run_flow(flow_call: Coroutine[Any, Any, dict]) -> dict:
    """Run a flow to its end in this process. An error the CLI explains (a misconfigured model, a failed
    quality gate) is printed once, without Prefect's traceback. SIGINT or SIGTERM stops the run (see
    pipeline.on_interrupt), prints one line and exits 128 + the signal's number."""
    import logging

    from agent_signals.stages import run as pipeline

    explained = _DropExplained()
    loggers = [logging.getLogger(name) for name in ("prefect.flow_runs", "prefect.task_runs")]
    for logger in loggers:
        logger.addFilter(explained)
    pipeline.on_interrupt(_interrupted)
    try:
        return asyncio.run(flow_call)
    finally:
        pipeline.on_interrupt(None)
        for logger in loggers:
            logger.removeFilter(explained)


class _DropExplained:
    """Keeps out of the terminal Prefect's report of an exception the CLI prints as `error:` and `hint:`."""

    def filter(self, record) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, AgentSignalsError)


def _interrupted(signum: int, summary: dict | None) -> None:
    """The run was interrupted and its ledger row written: say so in one line and end the process now
    (Prefect's temporary server got the signal too; waiting on it would only print tracebacks)."""
    import os

    from prefect.server.api.server import SubprocessASGIServer

    if summary is None:
        click.echo("interrupted: nothing was written", err=True)
    else:
        click.echo(
            f"interrupted: {summary['users']} user(s) committed by run {summary['run_id']}, "
            "the next run finishes the rest",
            err=True,
        )
    SubprocessASGIServer().stop()  # the temporary server of this process, if any is still running
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(128 + signum)


def _fail_if_nothing_worked(summary: dict) -> None:
    """A run in which every user it tried failed did nothing: say so, and exit non-zero."""
    if summary["users"] and summary["failures"] >= summary["users"]:
        raise AgentSignalsError(
            f"all {summary['users']} user(s) of run {summary['run_id']} failed",
            hint="the reasons are in ops.failures (select * from ops.failures where run_id = "
            f"'{summary['run_id']}'); the users stay pending and the next run retries them",
        )


@cli.command("backfill")
@click.option("--since", required=True, type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"]),
              help="Start of the window (UTC unless an offset is given), e.g. 2026-05-01.")  # fmt: skip
@click.option("--until", required=True, type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"]),
              help="End of the window, excluded.")  # fmt: skip
@click.option("--user", "users", multiple=True, help="Only this user (repeat for several).")
@click.option("--slice", "slice_", default="1d", show_default=True, help="Slice length: 30m, 6h, 1d, 1w.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would change.")
@click.pass_context
def backfill_cmd(
    ctx: click.Context, since: datetime, until: datetime, users: tuple[str, ...], slice_: str, dry_run: bool
) -> None:
    """Replay a window through the same stages, slice by slice (idempotent, resumable)."""
    from agent_signals.core import windows
    from agent_signals.flows.backfill import backfill_signals
    from agent_signals.stages import run as pipeline

    settings = _settings(ctx)
    since, until = _utc(since), _utc(until)
    windows.check_window(since, until)
    windows.parse_slice(slice_)
    total = _window_messages(settings, since, until, list(users))
    if total == 0:
        raise AgentSignalsError(
            f"no flagged user messages between {since.isoformat()} and {until.isoformat()}"
            + (f" for {', '.join(users)}" if users else ""),
            hint="check the window and the user ids (`agent-signals signals list --user U`)",
        )
    started = time.monotonic()
    progress = _Progress(total)
    pipeline.on_progress(progress.update)
    try:
        summary = _run_flow(
            backfill_signals(
                since=since,
                until=until,
                users=list(users) or None,
                slice=slice_,
                dry_run=dry_run,
                settings=settings,
            )
        )
    finally:
        pipeline.on_progress(None)
        progress.close()
    _print_summary(summary, time.monotonic() - started)
    if dry_run:
        changes = {
            k: v
            for k, v in summary["actions"].items()
            if k in ("created", "updated", "reinforced", "demoted", "merged")
        }
        click.echo(
            "dry run, nothing written. Would change: "
            + (", ".join(f"{k} {v}" for k, v in changes.items()) or "nothing")
        )


class _Progress:
    """Users and messages done, rate and ETA, on stderr: redrawn in place on a terminal, a line every few
    seconds otherwise (logs, CI)."""

    def __init__(self, total_messages: int) -> None:
        self.total = total_messages
        self.users: set[str] = set()  # distinct: a user can be in every slice of a backfill
        self.messages = 0
        self.started = self.printed = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, user_ids: list[str], messages: int) -> None:
        self.users.update(user_ids)
        self.messages += messages
        now = time.monotonic()
        if self.tty or now - self.printed >= 2 or self.messages >= self.total:
            self.printed = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.messages / max(now - self.started, 1e-6)
        left = max(self.total - self.messages, 0)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        line = (
            f"users {len(self.users)}, messages {self.messages}/{self.total} "
            f"({100 * self.messages / max(self.total, 1):.0f}%), {rate:.1f} msg/s, ETA {eta}"
        )
        click.echo(f"\r{line}" if self.tty else line, err=True, nl=not self.tty)

    def close(self) -> None:
        if self.tty:
            click.echo("", err=True)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _window_messages(settings: Settings, since: datetime, until: datetime, users: list[str]) -> int:
    from agent_signals.store import db as database
    from agent_signals.store.migrate import check_current
    from agent_signals.store.source import Window
    from agent_signals.store.sqlfiles import query

    window = Window(until=until, since=since, users=tuple(users) or None, ignore_watermarks=True)
    with database.session(settings) as conn:
        check_current(conn, settings)
        rows = conn.execute(query(settings, "scan_pending_users"), window.params).fetchall()
    return sum(row[1] for row in rows)


@cli.command("eval")
@click.option("--dataset", "dataset_path", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="Conversations with gold facts (the shape of msc-valid.json, or eval/workplace-signals.json).")  # fmt: skip
@click.option("--model", default=None, help="litellm model to evaluate (default: AGENT_SIGNALS_MODEL).")
@click.option("--limit-users", type=click.IntRange(min=1), default=None, help="Only the first N users.")
@click.pass_context
def eval_cmd(ctx: click.Context, dataset_path: Path, model: str | None, limit_users: int | None) -> None:
    """Precision and recall of the stored signals against a dataset's gold facts, from a real run in a
    scratch database (never the project's signals). Ends with one JSON line."""
    import json

    from agent_signals.evaluation import evaluate

    settings = _settings(ctx)
    try:
        raw = json.loads(dataset_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AgentSignalsError(
            f"cannot read {dataset_path}: {exc}", hint="pass a JSON dataset file"
        ) from exc
    dataset = evaluate.read_dataset(raw, str(dataset_path), limit_users)
    if not dataset.users:
        raise AgentSignalsError(
            f"{dataset_path}: no users to evaluate", hint="check --limit-users and the file"
        )
    report, summary = evaluate.run(settings, dataset, model)
    result = {
        "dataset": str(dataset_path), "model": model or settings.model, "prompt_version": settings.prompt_version,
        "users": len(dataset.users),
        **report.as_dict(), "llm_calls": summary["llm_calls"], "prompt_tokens": summary["prompt_tokens"],
        "completion_tokens": summary["completion_tokens"], "cost_usd": summary["cost_usd"],
    }  # fmt: skip
    click.echo(
        f"{result['dataset']}: {result['users']} users, model {result['model']}, prompt {result['prompt_version']}"
    )
    click.echo(f"  precision {result['precision']:.3f}  recall {result['recall']:.3f}  F1 {result['f1']:.3f}  "
               f"({report.correct}/{report.signals} signals right, {report.found_facts}/{report.expected_facts} facts found)")  # fmt: skip
    click.echo(f"  recall with one fact per signal (the matcher before consolidated signals were credited): "
               f"{result['recall_single_match']:.3f} ({report.found_single}/{report.expected_facts})")  # fmt: skip
    click.echo(f"  wrong speaker {report.wrong_speaker} ({result['wrong_speaker_rate']:.1%})  "
               f"negatives stored: {result['negative_hits'] or 'none'}  tier accuracy {result['tier_accuracy']}")  # fmt: skip
    click.echo(f"  model calls {result['llm_calls']}, prompt tokens {result['prompt_tokens']}, "
               f"completion tokens {result['completion_tokens']}, cost ${result['cost_usd']:.4f}")  # fmt: skip
    click.echo(f"  {'kind':<22}{'signals':>8}{'precision':>11}{'facts':>7}{'recall':>8}")
    for kind, row in result["by_kind"].items():
        fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
        click.echo(f"  {kind:<22}{row['signals']:>8}{fmt(row['precision']):>11}{row['expected_facts']:>7}{fmt(row['recall']):>8}")  # fmt: skip
    click.echo(json.dumps(result))


@cli.command("replay")
@click.option("--prompt-version", required=True, help="Candidate prompt, e.g. v2 (prompts/extract/v2.*).")
@click.option("--since", required=True, type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"]),
              help="Start of the window of history (UTC unless an offset is given).")  # fmt: skip
@click.option("--until", default=None, type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"]),
              help="End of the window, excluded (default: now).")  # fmt: skip
@click.option("--user", "users", multiple=True, help="Only this user (repeat for several).")
@click.option("--show", default=5, show_default=True, help="Examples listed per kind of difference.")
@click.pass_context
def replay_cmd(ctx: click.Context, prompt_version: str, since: datetime, until: datetime | None,
               users: tuple[str, ...], show: int) -> None:  # fmt: skip
    """Run a candidate prompt over historical messages WITHOUT writing, and print how its signals differ
    from the stored ones (would add, drop, change, re-tier), with model calls and cost."""
    import json

    from agent_signals.core import windows
    from agent_signals.evaluation.replay import replay
    from agent_signals.store.migrate import check_current
    from agent_signals.store.source import Window

    settings = _settings(ctx)
    try:
        candidate = settings.model_copy(update={"prompt_version": Settings.model_validate(
            {"prompt_version": prompt_version}).prompt_version})  # fmt: skip
    except ValueError as exc:
        raise AgentSignalsError(
            f"--prompt-version {prompt_version!r} is not a version", hint="e.g. v2"
        ) from exc
    since, until = _utc(since), _utc(until or datetime.now(UTC))
    windows.check_window(since, until)
    from agent_signals.store import db as database

    with database.session(settings) as conn:
        check_current(conn, settings)
    window = Window(until=until, since=since, users=tuple(users) or None, ignore_watermarks=True)
    diff, usage = asyncio.run(replay(candidate, window))
    if usage["users"] == 0:
        raise AgentSignalsError(
            f"no flagged user messages between {since.isoformat()} and {until.isoformat()}"
            + (f" for {', '.join(users)}" if users else ""),
            hint="check the window and the user ids",
        )
    click.echo(f"replay of {usage['prompt_version']} over {usage['users']} users, {usage['messages']} messages "
               f"(nothing written)")  # fmt: skip
    click.echo(f"  would add {len(diff.add)}, drop {len(diff.drop)}, change {len(diff.change)}, "
               f"re-tier {len(diff.retier)}; unchanged {diff.unchanged}")  # fmt: skip
    click.echo(f"  model calls {usage['llm_calls']}, prompt tokens {usage['prompt_tokens']}, "
               f"completion tokens {usage['completion_tokens']}, cost ${usage['cost_usd']:.4f}, "
               f"failures {usage['failures']}")  # fmt: skip
    for c in diff.add[:show]:
        click.echo(f"  + {c.user_id}: {c.content} [{c.tier}/{c.kind}]")
    for s in diff.drop[:show]:
        click.echo(f"  - {s.user_id}: {s.content} [{s.tier}/{s.kind}]")
    for s, c in diff.change[:show]:
        click.echo(f"  ~ {s.user_id}: {s.content} -> {c.content}")
    for s, c in diff.retier[:show]:
        click.echo(f"  ^ {s.user_id}: {s.content} [{s.tier} -> {c.tier}]")
    click.echo(json.dumps({**usage, "add": len(diff.add), "drop": len(diff.drop), "change": len(diff.change),
                           "retier": len(diff.retier), "unchanged": diff.unchanged}))  # fmt: skip


@cli.command("serve")
@click.pass_context
def serve_cmd(ctx: click.Context) -> None:
    """Serve the scheduled and backfill deployments of deploy/prefect.yaml in this process.

    With no PREFECT_API_URL, a local Prefect server (with its scheduler) runs as a child until serve stops."""
    from prefect import serve

    from agent_signals.adapters.prefect_server import prefect_api
    from agent_signals.flows.deployments import build

    deployments = build(_settings(ctx))
    with prefect_api() as (api_url, server_log):
        started = f" (started by serve, log {server_log})" if server_log else ""
        click.echo(f"Prefect API {api_url}{started}")
        click.echo(f"serving {', '.join(d.name for d in deployments)} (Ctrl+C to stop)")
        serve(*deployments)


def _print_summary(summary: dict, seconds: float) -> None:
    actions = ", ".join(f"{k} {v}" for k, v in summary["actions"].items()) or "none"
    purposes = ", ".join(f"{k} {v}" for k, v in summary["llm_calls_by_purpose"].items())
    click.echo(
        f"\n{_run_name(summary)}: {summary['status']} in {seconds:.1f}s\n"
        f"  users {summary['users']}, conversations {summary['conversations']}, messages {summary['messages']}\n"
        f"  actions: {actions}\n"
        f"  llm calls {summary['llm_calls']}{f' ({purposes})' if purposes else ''}"
        f"{f', answers as {mode}' if (mode := summary.get('answer_mode')) else ''}, "
        f"prompt tokens {summary['prompt_tokens']}"
        + (f" ({summary['cached_prompt_tokens']} cached)" if summary.get("cached_prompt_tokens") else "")
        + f", completion tokens {summary['completion_tokens']}, cost ${summary['cost_usd']:.4f}\n"
        f"  failures {summary['failures']}"
        + (
            "\n  left for the next run: " + ", ".join(f"{k} {v}" for k, v in summary["skipped_users"].items())
            if summary.get("skipped_users")
            else ""
        )
    )


def _run_name(summary: dict) -> str:
    """How the summary names its run: a dry run has no row in ops.runs, so no run id."""
    if summary.get("dry_run"):
        return f"dry run ({summary['kind']}, nothing written)"
    return f"run {summary['run_id']} ({summary['kind']})"


@cli.group()
def signals() -> None:
    """Read, add, edit, delete and search signals; undo a reconciliation."""


@signals.command("list")
@click.option("--user", required=True, help="User id.")
@click.option("--all", "show_all", is_flag=True, help="Include archived, merged and deleted signals.")
@click.pass_context
def signals_list(ctx: click.Context, user: str, show_all: bool) -> None:
    """List a user's signals: tier, origin, kind, mentions, last seen, content and evidence."""
    from agent_signals.store import db as database
    from agent_signals.store.sqlfiles import query

    settings = _settings(ctx)
    with database.session(settings) as conn:
        if not conn.execute(query(settings, "user_exists"), {"user_id": user}).fetchone()[0]:
            raise UnknownUser(f"no conversations or signals for user {user!r}", hint="check the user id")
        rows = conn.execute(query(settings, "list_signals"), {"user_id": user, "all": show_all}).fetchall()
    if not rows:
        click.echo(f"{user} has no signals yet")
    for signal_id, tier, origin, kind, status, mentions, last_seen, content, evidence in rows:
        state = "" if status == "active" else f" [{status}]"
        bucket = "manual" if origin == "manual" else tier
        click.echo(
            f"- {content}{state}\n    {str(signal_id)[:8]}  {bucket}/{kind}, {origin}, {mentions} mention(s), "
            f"last seen {last_seen:%Y-%m-%d %H:%M}"
        )
        for e in evidence:
            click.echo(f'    evidence {e["conversation_id"]}:{e["message_id"]} "{e["quote"]}"')


@signals.command("add")
@click.option("--user", required=True, help="User id.")
@click.option("--kind", required=True, help="Kind of the signal (e.g. role, writing).")
@click.argument("content")
@click.pass_context
def signals_add(ctx: click.Context, user: str, kind: str, content: str) -> None:
    """Add one of the user's own signals (origin manual: never changed by the pipeline)."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database

    settings = _settings(ctx)
    _check_kind(settings, kind)
    with database.session(settings) as conn:
        signal_id = user_paths.add_signal(conn, settings, user, content, kind)
    user_paths.embed_user_signals(settings, user)
    user_paths.refresh_context(settings, user)
    click.echo(f"added {signal_id} for {user}")


@signals.command("edit")
@click.option("--user", required=True, help="User id.")
@click.option("--kind", default=None, help="New kind (unchanged when omitted).")
@click.argument("signal")
@click.argument("content")
@click.pass_context
def signals_edit(ctx: click.Context, user: str, kind: str | None, signal: str, content: str) -> None:
    """Edit a signal (id or id prefix) as the user. Editing an inferred signal makes it the user's own."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database

    settings = _settings(ctx)
    if kind is not None:
        _check_kind(settings, kind)
    with database.session(settings) as conn:
        signal_id = user_paths.resolve_signal(conn, settings, user, signal)
        edited = user_paths.edit_signal(conn, settings, user, signal_id, content, kind)
    user_paths.embed_user_signals(settings, user)
    user_paths.refresh_context(settings, user)
    click.echo(f"edited {edited} for {user}")


@signals.command("delete")
@click.option("--user", required=True, help="User id.")
@click.argument("signal")
@click.pass_context
def signals_delete(ctx: click.Context, user: str, signal: str) -> None:
    """Delete a signal (id or id prefix) as the user; a deleted inferred signal is never learned again."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database

    settings = _settings(ctx)
    with database.session(settings) as conn:
        signal_id = user_paths.resolve_signal(conn, settings, user, signal)
        user_paths.delete_signal(conn, settings, user, signal_id)
    user_paths.refresh_context(settings, user)
    click.echo(f"deleted {signal_id} for {user}")


@cli.command("forget")
@click.option("--user", required=True, help="User id.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def forget_cmd(ctx: click.Context, user: str, yes: bool) -> None:
    """Remove everything derived about a user (signals, evidence, events, summaries, view rows)."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database
    from agent_signals.store.sqlfiles import query

    settings = _settings(ctx)
    with database.session(settings) as conn:
        if not conn.execute(query(settings, "user_exists"), {"user_id": user}).fetchone()[0]:
            raise UnknownUser(f"no conversations or signals for user {user!r}", hint="check the user id")
        if not yes:
            try:
                confirmed = click.confirm(f"Forget everything derived about {user}?", default=False)
            except click.exceptions.Abort:  # no input (EOF) or Ctrl-C: a no
                click.echo()  # end the prompt's line
                confirmed = False
            if not confirmed:
                click.echo(f"nothing was done: user {user} was not forgotten", err=True)
                raise click.exceptions.Abort  # exit 130
        removed = user_paths.forget_user(conn, settings, user)
    click.echo(
        f"forgot {user}: {removed} signal(s) and everything derived from them; ops.forgotten records it"
    )


@signals.command("undo")
@click.argument("event_id", type=int)
@click.pass_context
def signals_undo(ctx: click.Context, event_id: int) -> None:
    """Reverse a reconciliation merge or demotion (EVENT_ID from signals.events)."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database

    settings = _settings(ctx)
    with database.session(settings) as conn:
        click.echo(user_paths.undo(conn, settings, event_id))


@signals.command("search")
@click.option("--user", default=None, help="Only this user's signals.")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.argument("text")
@click.pass_context
def signals_search(ctx: click.Context, user: str | None, limit: int, text: str) -> None:
    """Semantic search over active signals (embeddings, cosine similarity)."""
    from agent_signals.stages import user_signals as user_paths
    from agent_signals.store import db as database

    settings = _settings(ctx)
    with database.session(settings) as conn:
        rows = user_paths.search(conn, settings, text, user_id=user, limit=limit)
    if not rows:
        click.echo("no signals match")
    for row in rows:
        bucket = "manual" if row["origin"] == "manual" else row["tier"]
        click.echo(f"{row['similarity']:.3f}  {row['user_id']}  {bucket}/{row['kind']}  {row['content']}")


@cli.group("set-aside")
def set_aside_group() -> None:
    """Review and release the messages set aside after a user's failed attempts."""


@set_aside_group.command("list")
@click.option("--user", default=None, help="Only this user's messages.")
@click.option("--all", "show_all", is_flag=True, help="Include released messages.")
@click.pass_context
def set_aside_list(ctx: click.Context, user: str | None, show_all: bool) -> None:
    """List the messages no run reads (id, user, conversation:message, attempts, when, why)."""
    from agent_signals.store import db as database
    from agent_signals.store import set_aside

    settings = _settings(ctx)
    with database.session(settings) as conn:
        rows = set_aside.list_set_aside(conn, settings, user_id=user, include_released=show_all)
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
    from agent_signals.store import db as database
    from agent_signals.store import set_aside

    settings = _settings(ctx)
    with database.session(settings) as conn:
        released = set_aside.release(conn, settings, ids=ids, user_id=user, everything=everything)
    click.echo(f"released {len(released)} message(s); the next run reads them again")


@cli.group()
def views() -> None:
    """Build the context and analytics views (dbt) by hand."""


@views.command("refresh")
@click.pass_context
def views_refresh(ctx: click.Context) -> None:
    """Rebuild the views for every user now (runs refresh only the users they changed)."""
    from datetime import UTC, datetime

    from agent_signals.adapters import dbt as dbt_views
    from agent_signals.store import db as database
    from agent_signals.store.migrate import check_current
    from agent_signals.store.sqlfiles import query

    settings = _settings(ctx)
    started = datetime.now(UTC)
    with database.session(settings) as conn:
        check_current(conn, settings)
        result = dbt_views.refresh(settings, None, full=True)
        conn.execute(query(settings, "clear_all_dirty"), {"refresh_started": started})
    click.echo(f"views rebuilt for all users in {result.seconds:.1f}s")


@views.command("docs")
@click.pass_context
def views_docs(ctx: click.Context) -> None:
    """Generate the dbt documentation site of the views (under the data folder)."""
    from agent_signals.adapters import dbt as dbt_views

    click.echo(f"dbt docs written to {dbt_views.docs(_settings(ctx))}")


@cli.command("context")
@click.argument("user")
@click.option("--summary/--no-summary", default=False, help="Also print the user's summary paragraph.")
@click.pass_context
def context_cmd(ctx: click.Context, user: str, summary: bool) -> None:
    """Print a user's block from context.user_context, ready to paste into a system prompt."""
    from agent_signals.store import db as database
    from agent_signals.store.sqlfiles import query

    settings = _settings(ctx)
    with database.session(settings) as conn:
        try:
            row = conn.execute(query(settings, "user_context"), {"user_id": user}).fetchone()
        except psycopg.errors.UndefinedTable:
            raise AgentSignalsError(
                "the context views do not exist yet",
                hint="run `agent-signals run` (or `agent-signals views refresh`)",
            ) from None
        if row is None:
            if not conn.execute(query(settings, "user_exists"), {"user_id": user}).fetchone()[0]:
                raise UnknownUser(f"no conversations or signals for user {user!r}", hint="check the user id")
            raise AgentSignalsError(
                f"{user!r} has no row in context.user_context yet",
                hint="the user has no active signal, or the views were not refreshed since: run `agent-signals run`",
            )
    markdown, text, _refreshed_at = row
    click.echo(markdown)
    if summary and text:
        click.echo(f"\n{text}")


def _check_kind(settings: Settings, kind: str) -> None:
    if kind not in settings.kinds:
        raise click.BadParameter(f"{kind!r} is not one of {', '.join(settings.kinds)}", param_hint="--kind")


def _sample_user(settings: Settings) -> str | None:
    from agent_signals.store import db as database
    from agent_signals.store.sqlfiles import query

    with database.session(settings) as conn:
        row = conn.execute(query(settings, "sample_user")).fetchone()
    return row[0] if row else None


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
        sys.exit(1)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName) as exc:
        # a command reading tables of a database that was never migrated (or migrated by an older version)
        click.echo(f"error: {exc.diag.message_primary or exc}: the database is not migrated", err=True)
        click.echo("hint: run `agent-signals db migrate`", err=True)
        sys.exit(1)
