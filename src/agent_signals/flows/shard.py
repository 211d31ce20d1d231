"""One shard of a run as its own flow run (AGENT_SIGNALS_RUNNER=deployments): the deployment `shard` in
deploy/prefect.yaml, run by any worker of the pool. It joins the run, processes its users, and leaves its
figures in ops.run_shards for the run that handed it out."""

from __future__ import annotations

from uuid import UUID

from prefect import flow
from prefect.runtime import flow_run

from agent_signals.flows.parameters import SettingsParameter, settings_or_environment
from agent_signals.stages.run import context, sharding


@flow(name="process-shard")
async def process_shard_run(run: dict, batch: str, shard: dict, settings: SettingsParameter = None) -> dict:
    spec = context.RunSpec.from_params(run, settings_or_environment(settings))
    part = sharding.Shard.from_params(shard)
    stats = await sharding.run_shard(spec, part)
    await sharding.record_shard_run(spec, UUID(batch), part, stats, flow_run.get_id())
    return stats.aggregates()
