"""The deployments declared in deploy/prefect.yaml, built for `agent-signals serve` (no work pool)."""

from __future__ import annotations

from pathlib import Path

import yaml
from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
from prefect.client.schemas.schedules import CronSchedule

from agent_signals.config import Settings
from agent_signals.flows.backfill import backfill_signals
from agent_signals.flows.extract import extract_signals
from agent_signals.flows.shard import process_shard_run

FLOWS = {
    "src/agent_signals/flows/extract.py:extract_signals": extract_signals,
    "src/agent_signals/flows/backfill.py:backfill_signals": backfill_signals,
    "src/agent_signals/flows/shard.py:process_shard_run": process_shard_run,
}


def declared(settings: Settings) -> list[dict]:
    path: Path = settings.database.project_dir / "deploy" / "prefect.yaml"
    return yaml.safe_load(path.read_text())["deployments"]


def build(settings: Settings) -> list:
    """RunnerDeployments with the schedule, parameters and concurrency limit the file declares."""
    built = []
    for spec in declared(settings):
        schedules = [
            CronSchedule(
                cron=settings.schedule.cron or s["cron"],
                timezone=settings.schedule.timezone or s.get("timezone"),
            )
            for s in spec.get("schedules") or []
        ]
        limit = spec.get("concurrency_limit")
        concurrency = (
            ConcurrencyLimitConfig(
                limit=limit["limit"], collision_strategy=ConcurrencyLimitStrategy(limit["collision_strategy"])
            )
            if limit
            else None
        )
        built.append(
            FLOWS[spec["entrypoint"]].to_deployment(
                name=spec["name"],
                description=spec.get("description"),
                parameters=spec.get("parameters") or {},
                schedules=schedules or None,
                concurrency_limit=concurrency,
            )
        )
    return built
