"""A run with nothing to do costs a scan: when sql/queries/upkeep/pending_work.sql finds no work of any kind,
the run is recorded in ops.runs (succeeded, zero figures, no answer mode: it asked no model) through the
ledger's own functions. Nothing on this path imports Prefect or litellm (3 to 4 s of imports between them;
tests/test_run_life.py runs it under `python -X importtime`). Otherwise the caller runs the full flow."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from uuid import uuid4

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.prompting.extract_calls import prompt_version
from agent_signals.store import database, upkeep
from agent_signals.store.ledger import runs
from agent_signals.store.schema.migrate import check_current


def pending_work(settings: Settings, until: datetime) -> list[str]:
    """The kinds of work a run would have to do now (empty: none)."""
    params = {**decay.query_params(settings, until), "summaries": settings.run.summaries}
    with database.session(settings) as conn:
        check_current(conn, settings)
        return upkeep.pending_work(conn, params)


def record_if_idle(settings: Settings, kind: str) -> dict | None:
    """Record a run with nothing to do and return its summary; None when there is work (run the flow)."""
    until = datetime.now(UTC)
    if pending_work(settings, until):
        return None
    return asyncio.run(_record(settings, kind, until))


async def _record(settings: Settings, kind: str, until: datetime) -> dict:
    run_id, stats = uuid4(), runs.RunStats()
    async with await database.aconnect(database.database_url(settings), autocommit=True) as ledger:
        await runs.abandon_dead_runs(ledger)
        await runs.start_run(
            ledger, settings, run_id=run_id, kind=kind, window_start=None, window_end=until,
            prompt_version=prompt_version(settings), flow_run_id=None, answer_mode=None,
        )  # fmt: skip
        await runs.update_run(ledger, run_id, stats, "succeeded")
    return stats.summary(run_id, kind, "succeeded")
