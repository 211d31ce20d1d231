"""What a reviewer does to the candidates held for review (signals of status pending, m023): list them,
approve one (signals.review_approve: active, in the context views when the command returns) or reject one
(signals.review_reject: a tombstone for its text). A signal is named by its id, or by the start of the id of
one waiting for review, matched exactly; a refusal is one AgentSignalsError with a hint."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from uuid import UUID

import psycopg

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.stages.by_hand.own_signals import ID_FORM, ID_TEXT, MIN_PREFIX, SignalNotFound
from agent_signals.store import own_signals, review
from agent_signals.store.review import Approved, PendingSignal

LISTED = "`agent-signals review list` shows the signals waiting for review"


class NotPending(AgentSignalsError):
    """A reviewer named a signal that is not waiting for review."""


def pending(conn: psycopg.Connection, settings: Settings, user_id: str | None = None) -> list[PendingSignal]:
    return review.pending(conn, user_id)


def resolve(conn: psycopg.Connection, settings: Settings, ref: str) -> tuple[UUID, str]:
    """(signal id, user) of the signal a reviewer names: its whole id, or a unique start (at least 4
    characters) of the id of a signal waiting for review. Refused before any query unless it is the start of
    an id's text form (hex digits, dashes where the id has them)."""
    ref = ref.strip().lower()
    if len(ref) < MIN_PREFIX or not ID_TEXT.fullmatch(ref + ID_FORM[len(ref) :]):
        raise SignalNotFound(
            f"{ref!r} is not a signal id or the start of one",
            hint=f"give at least {MIN_PREFIX} characters of an id (hex digits and dashes): {LISTED}",
        )
    whole = UUID(ref) if len(ref) == len(ID_FORM) else None
    found = review.find(conn, whole, ref)
    if not found:
        if whole:
            raise SignalNotFound(f"there is no signal {ref}", hint=LISTED)
        raise SignalNotFound(f"no signal waiting for review has an id starting {ref!r}", hint=LISTED)
    if len(found) > 1:
        raise SignalNotFound(f"{ref!r} names several signals waiting for review", hint="give more of the id")
    signal_id, user_id, _status = found[0]
    return signal_id, user_id


def approve(
    conn: psycopg.Connection, settings: Settings, ref: str, actor: str = "reviewer"
) -> tuple[UUID, Approved]:
    """The pending signal made active (as contextual when the user's core is full; a new version of a fact
    ends the version it replaces), and the user's summary, which no longer describes their signals, dropped
    in the same transaction (the next run writes a new one, as after a change by hand); then the user's rows
    of the context views rebuilt, so that it is in context.user_context when this returns. Returns its id and
    what the approval did."""
    signal_id, user_id = resolve(conn, settings, ref)
    with conn.transaction():
        approved = _decided(lambda: review.approve(conn, signal_id, actor))
        own_signals.drop_stale_summary(conn, user_id)
    from agent_signals.adapters import dbt_views  # the compiled plan; dbt itself loads only to compile

    dbt_views.refresh_users(settings, [user_id])
    return signal_id, approved


def reject(conn: psycopg.Connection, settings: Settings, ref: str, actor: str = "reviewer") -> UUID:
    """The pending signal rejected: never shown, and its text never learned again. Returns its id."""
    signal_id, _user_id = resolve(conn, settings, ref)
    _decided(lambda: review.reject(conn, signal_id, actor))
    return signal_id


T = TypeVar("T")


def _decided(decide: Callable[[], T]) -> T:
    """A review function's result; its refusals as one error with a hint."""
    try:
        return decide()
    except psycopg.errors.ObjectNotInPrerequisiteState as exc:  # not pending (any more)
        raise NotPending(exc.diag.message_primary or str(exc), hint=LISTED) from None
    except psycopg.errors.NoDataFound as exc:  # gone meanwhile (forgotten)
        raise SignalNotFound(exc.diag.message_primary or str(exc), hint=LISTED) from None
    except (psycopg.errors.RaiseException, psycopg.errors.DataError) as exc:  # a reviewer's name refused
        raise AgentSignalsError(exc.diag.message_primary or str(exc), hint=exc.diag.message_hint) from None
