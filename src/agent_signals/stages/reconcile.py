"""The write-time cap: at most 20 active inferred core signals per user after any committed transaction.

Runs inside the user's apply transaction, only when the cap is crossed: one model call (prompts/reconcile/v1)
returns keep / merge / demote decisions; an answer that is invalid or leaves the user over the cap is
finished by a deterministic rule (lowest retention demoted first, oldest last-seen as tie-break). The
database's deferred constraint trigger refuses any commit that would still break the cap.

A merge's new text is written by the model, so it is screened like a candidate (screen.screen_text): a
merge whose text fails is refused (counted as `merge_refused`), its signals stay as they were, and the
rule above brings the user under the cap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from agent_signals.core.answers import InvalidAnswer, Merge, ReconcileAnswer
from agent_signals.core.prompts import CoreLine
from agent_signals.core.redaction import redacting_logger
from agent_signals.core.screen import screen_text
from agent_signals.core.text import normalize_content

if TYPE_CHECKING:
    from agent_signals.stages.apply import _Writer

log = redacting_logger(__name__)

CORE_CAP = 20  # also signals.core_cap() in sql/migrations/m004_buckets.sql

# Given the user's core lines, their own lines and the cap, returns the parsed answer of one model call.
Decide = Callable[[list[CoreLine], list[CoreLine], int], Awaitable[ReconcileAnswer]]


@dataclass
class CoreRow:
    signal_id: UUID
    content: str
    kind: str
    mentions: int
    last_seen_at: datetime
    retention: float
    snapshot: dict[str, Any]
    new: bool


async def enforce_cap(writer: _Writer, decide: Decide | None, at: datetime) -> None:
    """Bring the writer's user back under the cap, within its open transaction."""
    rows = await writer.all("cap_signals", {"user_id": writer.user_id, "at": at})
    core = [
        CoreRow(
            r["signal_id"],
            r["content"],
            r["kind"],
            r["mention_count"],
            r["last_seen_at"],
            r["retention"],
            r["snapshot"],
            r["signal_id"] in writer.touched,
        )
        for r in rows
        if r["origin"] == "inferred"
    ]
    if len(core) <= CORE_CAP:
        return
    own = [r for r in rows if r["origin"] == "manual"]
    handles = {f"c{i}": row for i, row in enumerate(core, start=1)}
    if decide is not None:
        lines = [
            CoreLine(h, r.content, r.kind, r.mentions, r.last_seen_at.date().isoformat(), r.new)
            for h, r in handles.items()
        ]
        own_lines = [CoreLine(f"u{i}", r["content"], r["kind"]) for i, r in enumerate(own, start=1)]
        try:
            answer = await decide(lines, own_lines, CORE_CAP)
            plan = _plan(answer, handles, {line.handle for line in own_lines})
        except InvalidAnswer as exc:
            log.warning(
                "user %s: reconciliation answer rejected (%s); the cap rule decides", writer.user_id, exc
            )
            writer.counts["reconcile_invalid"] += 1
            plan = None
        except Exception as exc:  # the model is unavailable: the deterministic rule still holds the cap
            log.warning("user %s: reconciliation call failed (%s); the cap rule decides", writer.user_id, exc)
            writer.counts["reconcile_failed"] += 1
            plan = None
        if plan is not None:
            for reason in plan.refused:
                log.warning("user %s: a merge was refused: its text %s", writer.user_id, reason)
                writer.counts["merge_refused"] += 1
            core = await _apply_plan(writer, plan, handles)
    excess = len(core) - CORE_CAP
    if excess > 0:
        for row in sorted(core, key=lambda r: (r.retention, r.last_seen_at, str(r.signal_id)))[:excess]:
            await _demote(writer, row, reason="cap_rule")


@dataclass
class _Plan:
    merges: list[tuple[list[str], str]]
    demotes: list[str]
    # why each merge whose text failed screening was left out
    refused: list[str] = field(default_factory=list)


def _plan(answer: ReconcileAnswer, handles: dict[str, CoreRow], own: set[str]) -> _Plan:
    """Check the decisions against the handles shown; any violation rejects the whole answer. A merge whose
    text fails screening is left out (its signals are kept as they are)."""
    named: set[str] = set()
    plan = _Plan([], [])
    for i, decision in enumerate(answer.decisions):
        group = decision.signals if isinstance(decision, Merge) else [decision.signal]
        for handle in group:
            if handle in own:
                raise InvalidAnswer(f"decisions.{i}: {handle} is the user's own signal", "")
            if handle not in handles:
                raise InvalidAnswer(f"decisions.{i}: unknown handle {handle!r}", "")
            if handle in named:
                raise InvalidAnswer(f"decisions.{i}: {handle} appears in two decisions", "")
            named.add(handle)
        if isinstance(decision, Merge):
            if not normalize_content(decision.content):
                raise InvalidAnswer(f"decisions.{i}.content: no text", "")
            if reason := screen_text(decision.content):
                plan.refused.append(reason)
                continue
            plan.merges.append((list(group), " ".join(decision.content.split())))
        elif decision.action == "demote":
            plan.demotes.append(group[0])
    return plan


async def _apply_plan(writer: _Writer, plan: _Plan, handles: dict[str, CoreRow]) -> list[CoreRow]:
    """Apply merges and demotions; returns the core rows still active and core."""
    gone: set[str] = set()
    for group, content in plan.merges:
        rows = [handles[h] for h in group]
        survivor = max(rows, key=lambda r: (r.mentions, not r.new))  # the most reinforced, older first
        await _merge(writer, survivor, [r for r in rows if r is not survivor], content)
        gone.update(h for h in group if handles[h] is not survivor)
    for handle in plan.demotes:
        await _demote(writer, handles[handle], reason="reconciler")
        gone.add(handle)
    return [row for handle, row in handles.items() if handle not in gone]


async def _merge(writer: _Writer, survivor: CoreRow, absorbed: list[CoreRow], content: str) -> None:
    copied: list[Any] = []
    for row in absorbed:
        result = await writer.one(
            "absorb_signal",
            {"signal_id": row.signal_id, "survivor_id": survivor.signal_id, "run_id": writer.prov.run_id},
        )
        copied.extend(result["copied"])
    normalized = normalize_content(content)
    clash = await writer.one("find_signal_by_text", {"user_id": writer.user_id, "normalized": normalized})
    if clash is None or clash["signal_id"] == survivor.signal_id:
        await writer.one(
            "rewrite_signal",
            {
                "signal_id": survivor.signal_id,
                "content": content,
                "normalized": normalized,
                "kind": survivor.kind,
                "tier": "core",
                "embedding": None,  # keeps the survivor's embedding
            },
        )
    after = await writer.one("sync_mentions", {"signal_id": survivor.signal_id})
    await writer.event(
        survivor.signal_id,
        "merge",
        {"survivor": survivor.snapshot, "absorbed": [r.snapshot for r in absorbed]},
        {"survivor": after["snapshot"], "absorbed": [str(r.signal_id) for r in absorbed], "copied": copied},
        actor="reconciler",
    )
    writer.counts["merged"] += len(absorbed)


async def _demote(writer: _Writer, row: CoreRow, *, reason: str) -> None:
    after = await writer.one("set_tier", {"signal_id": row.signal_id, "tier": "contextual"})
    await writer.event(
        row.signal_id, "demote", row.snapshot, {**after["snapshot"], "reason": reason}, actor="reconciler"
    )
    writer.counts["demoted"] += 1
