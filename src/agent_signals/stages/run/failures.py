"""A user's failure during a run: the UserFailed an extraction raises, and its record (logged redacted,
written to ops.failures and then counted in the run's figures, so that the two agree; a counted one delays
the user's next attempt and, after the last attempt allowed, sets aside the messages the failed calls kept
reading: runs.record_failure). A user cut off by an interrupt or a lost database connection has not failed:
they stay pending. Whether an error is the user's to count (blames_user): a database error is not."""

from __future__ import annotations

import psycopg

from agent_signals.core.actions import Count
from agent_signals.core.prompting.extract_calls import SourceMessage
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.core.screening.screen import redact
from agent_signals.stages.run.context import RunContext, cut_off
from agent_signals.store.ledger import runs

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
    and, after the last attempt allowed, set aside the messages the failed calls kept reading. A failure
    is counted in the run's figures once its row is written (a dry run writes none and counts it): one
    that cannot be written is logged and not counted. Nothing is recorded for a run whose writes are cut
    off (interrupted, or its database lost): the user stays pending."""
    if ctx.stop.cut:
        return
    log.warning("user %s: %s failed (%s): %s", user_id, stage, kind, redact(message)[:300])
    if not ctx.dry_run:  # a dry run writes nothing, failures included
        recorded = await _record(ctx, user_id, stage, kind, message, raw, read, counted)
        if recorded is None:
            return
        if recorded.set_aside:
            ctx.stats.actions[Count.MESSAGES_SET_ASIDE] += recorded.set_aside
            log.warning(
                "user %s: %d message(s) set aside after %d failed attempts (`agent-signals set-aside list`); "
                "their other messages are read again", user_id, recorded.set_aside, recorded.attempt,
            )  # fmt: skip
    ctx.stats.failures += 1
    ctx.stats.failure_reasons[f"{stage}/{kind}"] += 1


async def _record(
    ctx: RunContext, user_id: str, stage: str, kind: str, message: str, raw: str | None,
    read: list[SourceMessage] | tuple[()], counted: bool,
) -> runs.RecordedFailure | None:  # fmt: skip
    """The failure's row, or None when it could not be written (then logged)."""
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
    except Exception as exc:  # the user is still pending and retried next run
        if not await cut_off(ctx, exc):  # a lost connection stops the run: said once, not per user
            log.exception("could not record the failure of user %s", user_id)
        return None
    return recorded


def blames_user(exc: BaseException) -> bool:
    """Whether an error while writing a user counts against them (their messages may be set aside): a bug
    met on their answer, or a value of theirs the database cannot hold (a data exception, SQLSTATE 22xxx).
    Any other database error (a constraint, a trigger, a permission, a timeout, a deadlock) is the
    database's or the pipeline's, not the user's: recorded, never counted."""
    return not isinstance(exc, psycopg.Error) or isinstance(exc, psycopg.DataError)
