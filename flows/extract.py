"""The scheduled extraction flow, as DESIGN.md draws it:

scan -> (per shard) lock users -> load -> extract -> validate -> quality gate -> apply -> reconcile cap
     -> decay scores -> summaries (changed users only) -> views (dbt, changed users only)
     -> table expectations (Great Expectations) -> run report (Prefect artifact)
"""

from __future__ import annotations

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from agent_signals import finish, pipeline
from agent_signals.config import Settings
from flows.report import publish_report


@task(name="process-shard", cache_policy=NO_CACHE)
async def process_shard(run: pipeline.RunContext, user_ids: list[str]) -> None:
    await pipeline.process_shard(run, user_ids)


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
async def extract_signals(kind: str = "scheduled") -> dict:
    settings = Settings()
    async with pipeline.open_run(settings, kind=kind, flow_run_id=flow_run.get_id()) as run:
        await pipeline.embed_missing(run)
        for shard in pipeline.shards(await pipeline.scan(run), settings.shard_size):
            await process_shard(run, shard)
        await finish_run(run)
    await publish_report(run)
    return run.summary()
