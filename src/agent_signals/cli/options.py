"""What the command groups share about their arguments: the Settings the root group loaded, the date-time
type of --since and --until (UTC unless an offset is given), and the check of a signal's --kind."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from agent_signals.config import Settings

MOMENT = click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"])


def settings_of(ctx: click.Context) -> Settings:
    """The Settings the root group loaded once for this invocation."""
    return ctx.find_root().obj


def utc(moment: datetime) -> datetime:
    """A --since/--until value as an aware datetime: UTC when it was given without an offset."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def check_kind(settings: Settings, kind: str) -> None:
    if kind not in settings.run.kinds:
        raise click.BadParameter(
            f"{kind!r} is not one of {', '.join(settings.run.kinds)}", param_hint="--kind"
        )
