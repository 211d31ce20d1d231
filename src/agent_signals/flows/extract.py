"""The scheduled extraction flow, as DESIGN.md draws it:

scan -> (per shard) lock users -> load -> extract -> validate -> quality gate -> apply -> reconcile cap
     -> retract orphans -> decay scores -> summaries (changed users only) -> views (dbt, changed users only)
     -> table expectations (Great Expectations) -> run report (Prefect artifact)

One stages/ module per step (docs/architecture.md follows a user's data through them). In provider batch
mode (docs/batch.md) the run first polls the batches still out (stages/run/batch_watch.py); each shard sends its
free users' prompts in a batch instead of extracting them and applies the answers of the batches that ended
(stages/run/batches.py); the run may wait for what it sent (AGENT_SIGNALS_BATCH_WAIT_S) and apply those too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import nullcontext

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run
from prefect.task_runners import TaskRunner

from agent_signals.flows.parameters import (
    ListenersParameter,
    SettingsParameter,
    listeners_or_own_process,
    settings_or_environment,
)
from agent_signals.flows.report import publish_report
from agent_signals.flows.runners import run_shard_deployments, task_runner
from agent_signals.stages import checks, decay, refresh, retract, scan, summarize
from agent_signals.stages.run import batch_watch, context, lifecycle, sharding
from agent_signals.store.ledger.runs import RunStats
from agent_signals.store.source import Pending


@task(name="process-shard", cache_policy=NO_CACHE)
async def process_shard(spec: context.RunSpec, shard: sharding.Shard) -> RunStats:
    return await sharding.run_shard(spec, shard)


async def process_shards(
    run: context.RunContext, pending: list[Pending], runner: TaskRunner | None = None
) -> None:
    """Each shard is a task: AGENT_SIGNALS_SHARDS_IN_FLIGHT at a time in this process (sharing its model
    concurrency and rate limits), or all at once on the run's task runner (flows.runners.task_runner:
    Dask, AGENT_SIGNALS_RUNNER=dask), or each a flow run of the shard deployment
    (AGENT_SIGNALS_RUNNER=deployments)."""
    with context.timed(run, "shards"):  # wall time of all shards (stage "process" sums the shards' own)
        await _process(run, sharding.shards(pending, run.settings), runner)
    context.raise_if_stopped(run)  # a misconfigured model ends the run here, before the later stages


async def _process(
    run: context.RunContext, shards: Iterable[sharding.Shard], runner: TaskRunner | None
) -> None:
    if run.settings.run.runner == "deployments" and not run.dry_run:
        await run_shard_deployments(run, list(shards))
        return
    if runner is not None:  # what process_shard.submit does, on the run's task runner
        futures = [runner.submit(process_shard, {"spec": run.spec(), "shard": shard}) for shard in shards]
        for future in futures:
            await sharding.merge(run, future.result())
        return
    in_flight = asyncio.Semaphore(run.settings.run.shards_in_flight)

    async def one(shard: sharding.Shard) -> None:
        async with in_flight:
            await sharding.merge(run, await process_shard(run.spec(), shard))

    await asyncio.gather(*(one(shard) for shard in shards))


async def finish_run(run: context.RunContext) -> None:
    """The stages after the writes (none for a dry run, which writes nothing)."""
    if run.dry_run:
        return
    await retract.retract_orphans(run)
    await decay.decay(run)
    failed_summaries = await summarize.summarize(run)
    await refresh.refresh_views(run, keep_dirty=failed_summaries)
    await checks.check_tables(run)


@flow(name="extract-signals")
async def extract_signals(
    kind: str = "scheduled", settings: SettingsParameter = None, listeners: ListenersParameter = None
) -> dict:
    settings = settings_or_environment(settings)
    listeners = listeners_or_own_process(listeners)
    with task_runner(settings) or nullcontext() as runner:
        async with lifecycle.open_run(
            settings, kind=kind, flow_run_id=flow_run.get_id(), listeners=listeners
        ) as run:
            await scan.embed_missing(run)
            await batch_watch.poll(run)
            await process_shards(run, await batch_watch.with_answered(run, await scan.scan(run)), runner)
            if waited := await batch_watch.wait(run):  # what this run sent, answered while it waited
                await process_shards(run, waited, runner)
            await finish_run(run)
            await batch_watch.settle(run)  # after summarize, which collects the summary batches
    await publish_report(run)
    return run.summary()
