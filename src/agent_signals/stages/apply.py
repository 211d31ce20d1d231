"""Apply validated proposals in one transaction for a group of users (a shard, or one user alone):
creates, updates, reinforcements, evidence, events, the write-time cap, the candidates held for review
(signals of status pending), quarantined and rejected candidates (redacted) and watermarks, set-based
(store/shard_writer.py: one statement per table for the whole group). Re-applying the same proposals changes
nothing.

Decide, then write: a write that takes users over the core cap is rolled back before the model is asked
(stages/reconcile.py), then written again with the model's plans; no model call is made while the
transaction is open or any of its users' rows is locked. Under the cap there is one transaction, no call.
A failing group is the caller's to split (stages/apply_safely.py): every user of it is left unwritten."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import UTC, datetime

import psycopg
from psycopg.pq import TransactionStatus

from agent_signals.config import Settings
from agent_signals.core.actions import SUMMARY_SPOILERS, Count
from agent_signals.core.outcome import UserOutcome
from agent_signals.stages.reconcile import CapCrossed, Decide, Reconciliation, enforce_caps, reconcile
from agent_signals.store.shard_writer import ShardWriter

# A context each of apply's transactions runs inside (a replay's rehearsal: stages/apply_safely.py's _rehearsed).
Around = Callable[[], AbstractAsyncContextManager[None]]
# A last statement in the transaction that writes (stages/apply_safely.py: a batch's requests closed).
Finish = Callable[[psycopg.AsyncConnection], Awaitable[None]]


async def apply_user(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    outcome: UserOutcome,
    *,
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
    around: Around | None = None,
    finish: Finish | None = None,
) -> Counter[Count]:
    """apply_users for one user: what its write did."""
    counts = await apply_users(
        conn, settings, [outcome], decide=decide, at=at, dry_run=dry_run, around=around, finish=finish
    )
    return counts[outcome.user_id]


async def apply_users(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    outcomes: Sequence[UserOutcome],
    *,
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
    around: Around | None = None,
    finish: Finish | None = None,
) -> dict[str, Counter[Count]]:
    """One transaction for the users' outcomes (of one run): their proposals, their events, the write-time
    cap, the candidates held for review (pending signals), the quarantined and the rejected candidates
    (redacted), the watermarks past every message read (released set-aside messages among them are read
    again). When the writes take users over the cap and `decide` is
    given, that transaction is rolled back at the cap, the model is asked for each of them with none open,
    and the writes are made again with its answers. A dry run does all of it, counts what changed, and
    rolls back. `finish` runs last in the transaction that writes (a provider batch's requests closed with
    the answers they gave). `conn` must have no transaction open. Returns what was done, by user."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        raise ValueError("apply_users opens its own transactions: call it with none open")
    if not outcomes:
        return {}
    (run_id,) = {o.prov.run_id for o in outcomes}  # one run's writes
    at = at or datetime.now(UTC)
    provs = {o.user_id: o.prov for o in outcomes}

    async def write(reconciliations: dict[str, Reconciliation], *, ask: bool) -> dict[str, Counter[Count]]:
        async with around() if around else nullcontext(), conn.transaction(force_rollback=dry_run):
            writer = ShardWriter(conn, settings, run_id, at)
            for user_id, reconciliation in reconciliations.items():
                writer.counts[user_id].update(reconciliation.counts)
            await writer.begin([o.user_id for o in outcomes])
            candidates = {o.user_id: o.candidates for o in outcomes}
            for step in range(max(len(c) for c in candidates.values())):
                await writer.write(
                    [(o, *candidates[o.user_id][step]) for o in outcomes if len(candidates[o.user_id]) > step]
                )
            await enforce_caps(writer, provs, reconciliations, ask=ask)
            # the extraction call wrote the summary of exactly this set: no separate summary call (none when
            # nothing stays active)
            await writer.summarize([
                (o.user_id, o.prov, o.summary) for o in outcomes
                if o.summary and writer.touched[o.user_id]
                and not any(writer.counts[o.user_id].get(k) for k in SUMMARY_SPOILERS)
            ])  # fmt: skip
            await writer.close_out(outcomes)
            if finish is not None:
                await finish(conn)
        return {o.user_id: writer.counts[o.user_id] for o in outcomes}

    try:
        return await write({}, ask=decide is not None)
    except CapCrossed as crossed:  # rolled back: every lock of the transaction is released
        shown = crossed.shown
    assert decide is not None
    users = sorted(shown)
    answers = await asyncio.gather(*(reconcile(decide, shown[u], u) for u in users))  # none open, no lock
    return await write(dict(zip(users, answers, strict=True)), ask=False)
