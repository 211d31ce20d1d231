"""The task runner the flows' shards run on: Prefect's default (shards awaited one after the other in the
flow's process, each with bounded async concurrency) or Dask (AGENT_SIGNALS_RUNNER=dask: a scheduler at
AGENT_SIGNALS_DASK_ADDRESS, or a local cluster of AGENT_SIGNALS_DASK_WORKERS processes)."""

from __future__ import annotations

from prefect.task_runners import TaskRunner

from agent_signals.config import Settings


def task_runner(settings: Settings) -> TaskRunner | None:
    if settings.runner != "dask":
        return None  # Prefect's default
    from prefect_dask import DaskTaskRunner

    if settings.dask_address:
        return DaskTaskRunner(address=settings.dask_address)
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": settings.dask_workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
        }
    )
