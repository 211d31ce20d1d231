"""The backfill flow: a window replayed slice by slice through the same stages (watermarks ignored,
idempotent, resumable: a finished slice is not redone), recorded in ops.runs as kind `backfill`."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime

from prefect import flow
from prefect.runtime import flow_run

from agent_signals.core import windows
from agent_signals.core.actions import Count
from agent_signals.flows.extract import finish_run, process_shards
from agent_signals.flows.parameters import (
    ListenersParameter,
    SettingsParameter,
    listeners_or_own_process,
    settings_or_environment,
)
from agent_signals.flows.report import publish_report
from agent_signals.flows.runners import task_runner
from agent_signals.stages import scan
from agent_signals.stages.run import lifecycle
from agent_signals.store.source import Window


@flow(name="backfill-signals")
async def backfill_signals(
    since: datetime,
    until: datetime,
    users: list[str] | None = None,
    slice: str = "1d",
    dry_run: bool = False,
    settings: SettingsParameter = None,
    listeners: ListenersParameter = None,
) -> dict:
    settings = settings_or_environment(settings)
    listeners = listeners_or_own_process(listeners)
    windows.check_window(since, until)
    step = windows.parse_slice(slice)
    users = sorted(set(users)) if users else None
    parameters = {"since": since.isoformat(), "until": until.isoformat(), "users": users, "slice": slice}
    window = Window(until=until, since=since, users=tuple(users) if users else None, ignore_watermarks=True)
    with task_runner(settings) or nullcontext() as runner:
        async with lifecycle.open_run(
            settings, kind="backfill", flow_run_id=flow_run.get_id(), window=window, dry_run=dry_run,
            parameters=parameters, listeners=listeners,
        ) as run:  # fmt: skip
            key = windows.backfill_key(since, until, users, step, run.prompt_version)
            done = set() if dry_run else await scan.finished_slices(run, key)
            if not dry_run:
                await scan.embed_missing(run)
            for start, end in windows.slices(since, until, step):
                if start in done:
                    run.stats.actions[Count.SLICES_ALREADY_DONE] += 1
                    continue
                run.window = Window(until=end, since=start, users=window.users, ignore_watermarks=True)
                before = (run.stats.failures, sum(run.stats.skipped_users.values()))
                pending = await scan.scan(run)
                await process_shards(run, pending, runner)
                clean = (run.stats.failures, sum(run.stats.skipped_users.values())) == before
                if clean and not dry_run:  # a slice with failures or skipped users is redone next time
                    await scan.record_slice(run, key, start, end, pending)
            run.window = window
            await finish_run(run)
    await publish_report(run)
    return run.summary()
