"""The commands that run the pipeline: `run` (once now), `backfill` (a window of history, slice by slice)
and `serve` (the scheduled, backfill and shard deployments in this process)."""

from __future__ import annotations

import asyncio
import signal
import time
from datetime import datetime

import click

from agent_signals.cli.flow_runs import fail_if_nothing_worked, interrupted, print_summary
from agent_signals.cli.options import MOMENT, settings_of, utc
from agent_signals.cli.progress import Progress
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.flows.foreground import run_flow


@click.command("run")
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
    from agent_signals.stages.run import idle

    started = time.monotonic()
    summary = idle.record_if_idle(settings_of(ctx), kind)
    if summary is None:
        from agent_signals.flows.extract import extract_signals
        from agent_signals.stages.run.context import RunListeners

        listeners = RunListeners(interrupted=interrupted)
        summary = run_flow(extract_signals(kind=kind, settings=settings_of(ctx), listeners=listeners))
    print_summary(summary, time.monotonic() - started)
    fail_if_nothing_worked(summary)
    return summary


@click.command("backfill")
@click.option(
    "--since",
    required=True,
    type=MOMENT,
    help="Start of the window (UTC unless an offset is given), e.g. 2026-05-01.",
)
@click.option("--until", required=True, type=MOMENT, help="End of the window, excluded.")
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
    from agent_signals.stages.run.context import RunListeners

    settings = settings_of(ctx)
    since, until = utc(since), utc(until)
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
    progress = Progress(total)

    def stopped(signum: int, summary: dict | None) -> None:  # the progress line ends before the last one
        progress.close()
        interrupted(signum, summary)

    listeners = RunListeners(progress=progress.update, interrupted=stopped)
    try:
        summary = run_flow(
            backfill_signals(
                since=since,
                until=until,
                users=list(users) or None,
                slice=slice_,
                dry_run=dry_run,
                settings=settings,
                listeners=listeners,
            )
        )
    finally:
        progress.close()
    print_summary(summary, time.monotonic() - started)
    if dry_run:
        changes = {
            k: v
            for k, v in summary["actions"].items()
            if k in ("created", "updated", "reinforced", "ended", "demoted", "merged", "held_for_review")
        }
        click.echo(
            "dry run, nothing written. Would change: "
            + (", ".join(f"{k} {v}" for k, v in changes.items()) or "nothing")
        )


def _window_messages(settings: Settings, since: datetime, until: datetime, users: list[str]) -> int:
    """The flagged user messages of the window (on a current schema), the progress bar's total."""
    from agent_signals.store import database
    from agent_signals.store.schema.migrate import check_current
    from agent_signals.store.source import Window
    from agent_signals.store.window_counts import flagged_messages

    window = Window(until=until, since=since, users=tuple(users) or None, ignore_watermarks=True)
    with database.session(settings) as conn:
        check_current(conn, settings)
        return flagged_messages(conn, window)


@click.command("serve")
@click.pass_context
def serve_cmd(ctx: click.Context) -> None:
    """Serve the scheduled, backfill and shard deployments of deploy/prefect.yaml in this process.

    With no PREFECT_API_URL, a local Prefect server (with its scheduler) runs as a child until serve stops."""
    from prefect.exceptions import TerminationSignal
    from prefect.flows import _display_serve_start_message
    from prefect.runner import Runner

    from agent_signals.adapters.prefect_server import prefect_api
    from agent_signals.flows.deployments import build

    class StoppableRunner(Runner):
        """Prefect's runner, stopping on Ctrl-C (SIGINT) as on SIGTERM, and gracefully: the runner's own stop
        (astop, in its loop) cancels the flow runs in progress (SIGTERM to each, which then writes its
        `interrupted` row as `agent-signals run` does: flows/parameters.listeners_or_own_process) and waits
        for them, instead of the loop coming apart and killing them mid-write. A second signal goes to
        Prefect's own handler: it pauses the deployments, then calls sys.exit(0) wherever the loop
        happens to be; inside an HTTP call, anyio turns that exit into a cancel-scope RuntimeError, which is a
        stop that completed, not a failure."""

        terminated = False
        stop_task: asyncio.Task | None = None  # held until done (Prefect's own `stopping` is its flag)

        def handle_sigterm(self, *args, **kwargs) -> None:
            if self.terminated or self._loop is None:
                self.terminated = True
                super().handle_sigterm(*args, **kwargs)
                return
            self.terminated = True
            self._logger.info("stopping: the flow runs in progress are cancelled and record what they did")
            self._loop.call_soon_threadsafe(self._stop_in_loop)

        def _stop_in_loop(self) -> None:
            self.stop_task = asyncio.ensure_future(self.astop())

    deployments = build(settings_of(ctx))
    with prefect_api() as (api_url, server_log):
        started = f" (started by serve, log {server_log})" if server_log else ""
        click.echo(f"Prefect API {api_url}{started}")
        click.echo(f"serving {', '.join(d.name for d in deployments)} (Ctrl+C to stop)")
        runner = StoppableRunner(pause_on_shutdown=True)  # what prefect.serve builds and prints
        for deployment in deployments:
            runner.add_deployment(deployment)
        _display_serve_start_message(*deployments)
        interrupt = signal.signal(signal.SIGINT, runner.handle_sigterm)  # Ctrl-C: as SIGTERM (see above)
        try:
            asyncio.run(runner.start())
        except (KeyboardInterrupt, TerminationSignal):  # as prefect.serve: a stop, not an error
            pass
        except BaseException:
            if not runner.terminated:
                raise
        finally:
            signal.signal(signal.SIGINT, interrupt)
