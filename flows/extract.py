"""The scheduled extraction flow, as DESIGN.md draws it:

scan -> (per shard) load -> extract -> validate -> apply -> reconcile cap
     -> decay scores -> summaries (changed users only) -> views (dbt, changed users only)
     -> table expectations (Great Expectations)
"""

from __future__ import annotations

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from agent_signals import pipeline
from agent_signals.config import Settings


@task(name="process-shard", cache_policy=NO_CACHE)
async def process_shard(run: pipeline.RunContext, user_ids: list[str]) -> None:
    await pipeline.process_shard(run, user_ids)


@flow(name="extract-signals")
async def extract_signals(kind: str = "scheduled") -> dict:
    settings = Settings()
    async with pipeline.open_run(settings, kind=kind, flow_run_id=flow_run.get_id()) as run:
        await pipeline.embed_missing(run)
        users = await pipeline.scan(run)
        for shard in pipeline.shards(users, settings.shard_size):
            await process_shard(run, shard)
        await pipeline.decay(run)
        failed_summaries = await pipeline.summarize(run)
        await pipeline.refresh_views(run, keep_dirty=failed_summaries)
        await pipeline.check_tables(run)
    return run.summary()
