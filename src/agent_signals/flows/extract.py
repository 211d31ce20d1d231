"""The scheduled extraction flow, as DESIGN.md draws it:

scan -> (per shard) lock users -> load -> extract -> validate -> quality gate -> apply -> reconcile cap
     -> decay scores -> summaries (changed users only) -> views (dbt, changed users only)
     -> table expectations (Great Expectations) -> run report (Prefect artifact)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import nullcontext

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run
from prefect.task_runners import TaskRunner

from agent_signals.flows.parameters import SettingsParameter, settings_or_environment
from agent_signals.flows.report import publish_report
from agent_signals.flows.runners import run_shard_deployments, task_runner
from agent_signals.stages import finish
from agent_signals.stages import run as pipeline
from agent_signals.store.runs import RunStats
from agent_signals.store.source import Pending


@task(name="process-shard", cache_policy=NO_CACHE)
async def process_shard(spec: pipeline.RunSpec, shard: pipeline.Shard) -> RunStats:
    return await pipeline.run_shard(spec, shard)


async def process_shards(
    run: pipeline.RunContext, pending: list[Pending], runner: TaskRunner | None = None
) -> None:
    """Each shard is a task: AGENT_SIGNALS_SHARDS_IN_FLIGHT at a time in this process (sharing its model
    concurrency and rate limits), or all at once on the run's task runner (flows.runners.task_runner:
    Dask, AGENT_SIGNALS_RUNNER=dask), or each a flow run of the shard deployment
    (AGENT_SIGNALS_RUNNER=deployments)."""
    with pipeline.timed(run, "shards"):  # wall time of all shards (stage "process" sums the shards' own)
        await _process(run, pipeline.shards(pending, run.settings), runner)
    pipeline.raise_if_stopped(run)  # a misconfigured model ends the run here, before the later stages


async def _process(
    run: pipeline.RunContext, shards: Iterable[pipeline.Shard], runner: TaskRunner | None
) -> None:
    if run.settings.runner == "deployments" and not run.dry_run:
        await run_shard_deployments(run, list(shards))
        return
    if runner is not None:  # what process_shard.submit does, on the run's task runner
        futures = [runner.submit(process_shard, {"spec": run.spec(), "shard": shard}) for shard in shards]
        for future in futures:
            await pipeline.merge(run, future.result())
        return
    in_flight = asyncio.Semaphore(run.settings.shards_in_flight)

    async def one(shard: pipeline.Shard) -> None:
        async with in_flight:
            await pipeline.merge(run, await process_shard(run.spec(), shard))

    await asyncio.gather(*(one(shard) for shard in shards))


async def finish_run(run: pipeline.RunContext) -> None:
    """The stages after the writes (none for a dry run, which writes nothing)."""
    if run.dry_run:
        return
    await finish.retract_orphans(run)
    await finish.decay(run)
    failed_summaries = await finish.summarize(run)
    await finish.refresh_views(run, keep_dirty=failed_summaries)
    await finish.check_tables(run)


@flow(name="extract-signals")
async def extract_signals(kind: str = "scheduled", settings: SettingsParameter = None) -> dict:
    settings = settings_or_environment(settings)
    with task_runner(settings) or nullcontext() as runner:
        async with pipeline.open_run(settings, kind=kind, flow_run_id=flow_run.get_id()) as run:
            await pipeline.embed_missing(run)
            await process_shards(run, await pipeline.scan(run), runner)
            await finish_run(run)
    await publish_report(run)
    return run.summary()
