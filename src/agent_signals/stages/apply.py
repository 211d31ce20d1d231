"""Apply one user's validated proposals in one transaction: creates, updates, reinforcements, evidence,
events, the write-time cap, quarantined and rejected candidates (redacted) and watermarks. Re-applying the
same proposals changes nothing.

Decide, then write: a write that crosses the core cap is rolled back before the model is asked
(stages/reconcile.py), then written again with the model's plan; no model call is made while the user's
transaction is open or any of the user's rows is locked. Under the cap there is one transaction, no call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import UTC, datetime

import psycopg
from psycopg.pq import TransactionStatus

from agent_signals.config import Settings
from agent_signals.core.batching import SourceMessage
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.stages.reconcile import CapCrossed, Decide, Reconciliation, enforce_cap, reconcile
from agent_signals.store.writer import Provenance, Writer

# Outcomes after which the model's summary no longer describes what was written.
SUMMARY_SPOILERS = (
    "skipped_manual",
    "skipped_tombstone",
    "merged",
    "demoted",
    "reconcile_invalid",
    "reconcile_failed",
)

# A context each of apply's transactions runs inside (a replay's rehearsal: stages/apply_users.py's _rehearsed).
Around = Callable[[], AbstractAsyncContextManager[None]]
# A last statement in the transaction that writes (stages/apply_users.py: a batch's requests closed).
Finish = Callable[[psycopg.AsyncConnection], Awaitable[None]]


async def apply_user(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    user_id: str,
    proposals: list[Proposal],
    read: list[SourceMessage],
    prov: Provenance,
    *,
    quarantine: Sequence[tuple[Proposal, str]] = (),
    rejected: Sequence[Rejection] = (),
    summary: str | None = None,
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
    around: Around | None = None,
    finish: Finish | None = None,
) -> Counter[str]:
    """One transaction: the proposals, their events, the write-time cap, the quarantined and the rejected
    candidates (redacted), the user's watermarks past every message read (released set-aside messages among
    them are read again). When the writes cross the cap and `decide` is given, that transaction is rolled
    back at the cap, the model is asked with none open, and the writes are made again with its answer. A dry
    run does all of it, counts what changed, and rolls back. `finish` runs last in the transaction that writes
    (a provider batch's requests closed with the answers they gave). `conn` must have no transaction open."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        raise ValueError("apply_user opens its own transactions: call it with none open")
    at = at or datetime.now(UTC)

    async def write(reconciliation: Reconciliation | None, *, ask: bool) -> Counter[str]:
        async with around() if around else nullcontext(), conn.transaction(force_rollback=dry_run):
            writer = Writer(conn, settings, user_id, prov, at)
            if reconciliation is not None:
                writer.counts.update(reconciliation.counts)
            await writer.lock_user()
            for proposal in proposals:
                await writer.write(proposal)
            if writer.touched:
                await enforce_cap(writer, reconciliation, ask=ask)
            if summary and writer.touched and not any(writer.counts.get(k) for k in SUMMARY_SPOILERS):
                # the extraction call wrote the summary of exactly this set: no separate summary call (none
                # when nothing stays active)
                await writer.summarize(summary)
            await writer.close_out(quarantine, rejected, read)
            if finish is not None:
                await finish(conn)
        return writer.counts

    try:
        return await write(None, ask=decide is not None)
    except CapCrossed as crossed:  # rolled back: every lock of the user's transaction is released
        shown = crossed.shown
    assert decide is not None
    reconciliation = await reconcile(decide, shown, user_id)  # no transaction open, no lock held
    return await write(reconciliation, ask=False)
