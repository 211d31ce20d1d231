"""Publishes a run's report as a Prefect markdown artifact (visible in the UI beside the flow run)."""

from __future__ import annotations

from prefect.artifacts import acreate_markdown_artifact

from agent_signals.stages.run import context
from agent_signals.store import database
from agent_signals.store.ledger import report


async def publish_report(run: context.RunContext) -> None:
    summary = run.summary()
    if run.dry_run:
        markdown = report.run_markdown(None, run.settings, summary)
    else:
        with database.session(run.settings) as conn:
            markdown = report.run_markdown(conn, run.settings, summary)
    name = f"{run.kind} dry run" if run.dry_run else f"{run.kind} run {run.run_id}"
    await acreate_markdown_artifact(key=f"{run.kind}-run-report", markdown=markdown, description=name)
