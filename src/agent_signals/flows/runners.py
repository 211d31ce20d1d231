"""Where a run's shards go when they leave the flow's process: a Dask task runner built from the run's
settings as the run starts (AGENT_SIGNALS_RUNNER=dask: a scheduler at AGENT_SIGNALS_DASK_ADDRESS, or a local
cluster of AGENT_SIGNALS_DASK_WORKERS processes), or flow runs of the shard deployment
(AGENT_SIGNALS_RUNNER=deployments). The flows' own task runner is Prefect's default: the settings that
choose are a flow's parameter, unknown when the flows are imported."""

from __future__ import annotations

from uuid import uuid4

from prefect.task_runners import TaskRunner

from agent_signals.config import Settings


def task_runner(settings: Settings) -> TaskRunner | None:
    """The task runner a run's shards are submitted to: a Dask one for AGENT_SIGNALS_RUNNER=dask (the flow
    enters it for the run's length, starting or joining the cluster once), else None (the shards run in the
    flow's process)."""
    if settings.run.runner != "dask":
        return None
    from prefect_dask import DaskTaskRunner

    if settings.run.dask_address:
        return DaskTaskRunner(address=settings.run.dask_address)
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": settings.run.dask_workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
        }
    )


async def run_shard_deployments(run, shards: list) -> None:
    """AGENT_SIGNALS_RUNNER=deployments: each shard becomes a flow run of the shard deployment
    (AGENT_SIGNALS_SHARD_DEPLOYMENT, src/agent_signals/flows/shard.py), taken by whichever worker of the pool is free; the
    run waits for them all, then adds the figures they left in ops.run_shards to its own. A shard flow
    run that failed leaves its users pending for the next run (and a warning here)."""
    from prefect.deployments import run_deployment
    from prefect.flow_runs import wait_for_flow_run

    from agent_signals.stages.run import sharding

    settings = run.settings
    spec = run.spec().to_params()
    batch = uuid4()  # this hand-out: a backfill hands out shards once per slice
    submitted = [
        await run_deployment(
            settings.run.shard_deployment,
            parameters={"run": spec, "batch": str(batch), "shard": shard.to_params()},
            timeout=0,  # submit only: the workers take them
            idempotency_key=f"{batch}:{shard.number}:{shard.part}",
        )
        for shard in shards
    ]
    for flow_run, shard in zip(submitted, shards, strict=True):
        final = await wait_for_flow_run(
            flow_run.id, timeout=int(settings.run.shard_run_timeout_s), log_states=False
        )
        if not final.state or not final.state.is_completed():
            state = final.state.name if final.state else "unknown"
            run.stats.warnings.append(
                f"shard {shard.number}/{shard.part} flow run {flow_run.id} ended {state}"
            )
            run.stats.failures += 1
    for stats in await sharding.shard_run_stats(run, batch):
        await sharding.merge(run, stats)
