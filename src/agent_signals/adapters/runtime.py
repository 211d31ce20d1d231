"""Process-wide defaults for running offline and quietly, applied once at an entry point (CLI, tests,
bench) before litellm, Prefect, dbt or Great Expectations are imported. Explicit settings win."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_signals.config import Settings

QUIET_OFFLINE_DEFAULTS = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # else litellm downloads a price list at import
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "PREFECT_LOGGING_EXTRA_LOGGERS": "agent_signals",  # our logs go through Prefect's handlers (and its UI)
}


# Prefect's logging configuration, but with task runs' INFO lines kept out of the terminal (they still reach
# Prefect's API and UI); PREFECT_LOGGING_HANDLERS_TASK_RUN_CONSOLE_LEVEL=INFO shows them again.
PREFECT_LOGGING_CONFIG = Path(__file__).with_name("prefect_logging.yml")


def apply_defaults(settings: Settings) -> None:
    for key, value in QUIET_OFFLINE_DEFAULTS.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("PREFECT_HOME", str(settings.database.data_dir / "prefect"))
    os.environ.setdefault("PREFECT_LOGGING_SETTINGS_PATH", str(PREFECT_LOGGING_CONFIG))


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of the block, then restore the previous values: for a
    library configured by its environment (dbt's profiles.yml, Prefect's API URL), never for the
    project's settings, which are passed as a Settings object."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
