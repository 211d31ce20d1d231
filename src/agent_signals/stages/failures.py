"""A user's failure during a run: the UserFailed an extraction raises, and its record (counted in the run's
figures, logged redacted, written to ops.failures; a counted one delays the user's next attempt and, after
the last attempt allowed, sets aside the messages the failed calls kept reading: runs.record_failure)."""

from __future__ import annotations

from agent_signals.core.batching import SourceMessage
from agent_signals.core.redaction import redacting_logger
from agent_signals.core.screen import redact
from agent_signals.stages.context import RunContext
from agent_signals.store import runs

log = redacting_logger(__name__)


class UserFailed(Exception):
    """A user's extraction call failed (the model's error, or an answer that cannot be parsed): nothing is
    written for the user and the failure is recorded with the messages that call read."""

    def __init__(
        self, stage: str, kind: str, message: str, read: list[SourceMessage], *, raw: str | None = None,
        counted: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.stage = stage
        self.kind = kind
        self.message = message
        self.read = read  # the messages of the failing call
        self.raw = raw  # the model's answer, when it could not be parsed
        self.counted = counted  # against the user (retries.py): not for a transient fault of the model


async def fail(
    ctx: RunContext, user_id: str, stage: str, kind: str, message: str, raw: str | None = None, *,
    read: list[SourceMessage] | tuple[()] = (), counted: bool = False,
) -> None:  # fmt: skip
    """Record a user's failure (redacted; runs.record_failure): `counted` ones delay the user's next attempt
    and, after the last attempt allowed, set aside the messages the failed calls kept reading."""
    ctx.stats.failures += 1
    ctx.stats.failure_reasons[f"{stage}/{kind}"] += 1
    log.warning("user %s: %s failed (%s): %s", user_id, stage, kind, redact(message)[:300])
    if ctx.dry_run:
        return  # a dry run writes nothing, failures included
    try:
        async with ctx.pool.connection() as conn:
            recorded = await runs.record_failure(
                conn,
                ctx.settings,
                run_id=ctx.run_id,
                user_id=user_id,
                stage=stage,
                error_kind=kind,
                message=message,
                raw_answer=raw,
                read=[(m.conversation_id, m.message_id) for m in read],
                counted=counted,
            )
    except Exception:  # the database itself is gone: the user is still pending and retried next run
        log.exception("could not record the failure of user %s", user_id)
        return
    if recorded.set_aside:
        ctx.stats.actions["messages_set_aside"] += recorded.set_aside
        log.warning(
            "user %s: %d message(s) set aside after %d failed attempts (`agent-signals set-aside list`); "
            "their other messages are read again", user_id, recorded.set_aside, recorded.attempt,
        )  # fmt: skip
