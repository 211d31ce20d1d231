"""A flow run to its end in this process for a command (`run`, `backfill`, `eval`): an error the command
explains itself in one `error:` line and a `hint:` (an AgentSignalsError) is kept out of Prefect's log in
the terminal, both its traceback and the flow run's "Finished in state Failed(...)" line that repeats it.
Prefect's API still records the failed state and its message."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from agent_signals.errors import AgentSignalsError

PREFECT_RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


def run_flow(flow_call: Coroutine[Any, Any, dict]) -> dict:
    """Run a flow to its end in this process, explained errors kept out of Prefect's terminal log."""
    explained = _DropExplained()
    loggers = [logging.getLogger(name) for name in PREFECT_RUN_LOGGERS]
    for logger in loggers:
        logger.addFilter(explained)
    try:
        return asyncio.run(flow_call)
    finally:
        for logger in loggers:
            logger.removeFilter(explained)


class _DropExplained:
    """Drops Prefect's report of an exception the command prints as `error:` and `hint:`, and the later
    records that repeat its message."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, AgentSignalsError):
            self.messages.append(exc.message)
            return False
        text = record.getMessage()
        return not any(message in text for message in self.messages)
