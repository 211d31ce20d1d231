"""Apply validated proposals in one transaction for a group of users (a shard, or one user alone):
creates, updates, reinforcements, evidence, events, the write-time cap, the candidates held for review
(signals of status pending), quarantined and rejected candidates (redacted) and watermarks, set-based
(store/shard_writer.py: one statement per table for the whole group). Re-applying the same proposals changes
nothing.

Decide, then write: a write that takes users over the core cap is rolled back before the model is asked
(stages/reconcile.py), then written again with the model's plans; no model call is made while the
transaction is open or any of its users' rows is locked. Under the cap there is one transaction, no call.
A failing group is the caller's to split (stages/apply_users.py): every user of it is left unwritten."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime

import psycopg
from psycopg.pq import TransactionStatus

from agent_signals.config import Settings
from agent_signals.core.actions import Count
from agent_signals.core.batching import SourceMessage
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.stages.reconcile import CapCrossed, Decide, Reconciliation, enforce_caps, reconcile
from agent_signals.store.shard_writer import Provenance, ShardWriter, UserClose

# Outcomes after which the model's summary no longer describes what was written.
SUMMARY_SPOILERS = (
    Count.SKIPPED_MANUAL,
    Count.SKIPPED_TOMBSTONE,
    Count.SKIPPED_END,
    Count.ENDED,
    Count.MERGED,
    Count.DEMOTED,
    Count.RECONCILE_INVALID,
    Count.RECONCILE_FAILED,
    Count.SKIPPED_REJECTED,
    Count.RESTATED_PENDING,
)

# A context each of apply's transactions runs inside (a replay's rehearsal: stages/apply_users.py's _rehearsed).
Around = Callable[[], AbstractAsyncContextManager[None]]
# A last statement in the transaction that writes (stages/apply_users.py: a batch's requests closed).
Finish = Callable[[psycopg.AsyncConnection], Awaitable[None]]


@dataclass(frozen=True)
class UserWrite:
    """What one user's write is made of."""

    user_id: str
    proposals: list[Proposal]
    read: list[SourceMessage]  # every message the user's extraction read (watermarks move past them)
    prov: Provenance
    quarantine: Sequence[tuple[Proposal, str]] = ()
    rejected: Sequence[Rejection] = ()
    summary: str | None = None  # the answer's summary of what gets written, when it gave one
    held: Sequence[tuple[Proposal, str]] = ()  # held for review, with the reason: written pending

    @property
    def candidates(self) -> list[tuple[Proposal, str | None]]:
        """What the user's rounds write, in order: the proposals, then those held for review (with why)."""
        return [*((p, None) for p in self.proposals), *self.held]


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
    held: Sequence[tuple[Proposal, str]] = (),
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
    around: Around | None = None,
    finish: Finish | None = None,
) -> Counter[Count]:
    """apply_users for one user: what its write did."""
    write = UserWrite(user_id, proposals, read, prov, quarantine, rejected, summary, held)
    counts = await apply_users(
        conn, settings, [write], decide=decide, at=at, dry_run=dry_run, around=around, finish=finish
    )
    return counts[user_id]


async def apply_users(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    writes: Sequence[UserWrite],
    *,
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
    around: Around | None = None,
    finish: Finish | None = None,
) -> dict[str, Counter[Count]]:
    """One transaction for the users (of one run): their proposals, their events, the write-time cap, the
    candidates held for review (pending signals), the quarantined and the rejected candidates (redacted), the watermarks past every message read (released
    set-aside messages among them are read again). When the writes take users over the cap and `decide` is
    given, that transaction is rolled back at the cap, the model is asked for each of them with none open,
    and the writes are made again with its answers. A dry run does all of it, counts what changed, and
    rolls back. `finish` runs last in the transaction that writes (a provider batch's requests closed with
    the answers they gave). `conn` must have no transaction open. Returns what was done, by user."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        raise ValueError("apply_users opens its own transactions: call it with none open")
    if not writes:
        return {}
    (run_id,) = {w.prov.run_id for w in writes}  # one run's writes
    at = at or datetime.now(UTC)
    provs = {w.user_id: w.prov for w in writes}

    async def write(reconciliations: dict[str, Reconciliation], *, ask: bool) -> dict[str, Counter[Count]]:
        async with around() if around else nullcontext(), conn.transaction(force_rollback=dry_run):
            writer = ShardWriter(conn, settings, run_id, at)
            for user_id, reconciliation in reconciliations.items():
                writer.counts[user_id].update(reconciliation.counts)
            await writer.begin([w.user_id for w in writes])
            candidates = {w.user_id: w.candidates for w in writes}
            for step in range(max(len(c) for c in candidates.values())):
                await writer.write([
                    (w.user_id, w.prov, *candidates[w.user_id][step]) for w in writes
                    if len(candidates[w.user_id]) > step
                ])  # fmt: skip
            await enforce_caps(writer, provs, reconciliations, ask=ask)
            # the extraction call wrote the summary of exactly this set: no separate summary call (none when
            # nothing stays active)
            await writer.summarize([
                (w.user_id, w.prov, w.summary) for w in writes
                if w.summary and writer.touched[w.user_id]
                and not any(writer.counts[w.user_id].get(k) for k in SUMMARY_SPOILERS)
            ])  # fmt: skip
            await writer.close_out(
                [UserClose(w.user_id, w.prov, w.quarantine, w.rejected, w.read) for w in writes]
            )
            if finish is not None:
                await finish(conn)
        return {w.user_id: writer.counts[w.user_id] for w in writes}

    try:
        return await write({}, ask=decide is not None)
    except CapCrossed as crossed:  # rolled back: every lock of the transaction is released
        shown = crossed.shown
    assert decide is not None
    users = sorted(shown)
    answers = await asyncio.gather(*(reconcile(decide, shown[u], u) for u in users))  # none open, no lock
    return await write(dict(zip(users, answers, strict=True)), ask=False)
