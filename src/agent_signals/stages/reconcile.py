"""The write-time cap: at most limits.CORE_CAP active inferred core signals per user after any committed
transaction. Decide, then write: the model is never asked while the user's transaction is open.

When a write takes users over the cap, apply's transaction stops there (CapCrossed) and rolls back, releasing
every lock; `reconcile` asks the model once per user over the cap (prompts/reconcile/v1: keep / merge /
demote) with no transaction open; apply then writes again and `enforce_caps` carries out the plan
(core/cap_plan.py) for the core set the model was shown. An answer that is invalid or leaves the user over the cap is finished by the deterministic
rule (lowest retention demoted first, oldest last-seen as tie-break), as is a core set that changed in
between (a concurrent write: counted `reconcile_stale`). Without a model (decide None) the rule decides at
once. The database's deferred constraint trigger (sql/functions/40_guards.sql) refuses any commit that
would still break the cap.

A merge's new text is written by the model, so it is screened like a candidate (screen.screen_text): a
merge whose text fails is refused (counted as `merge_refused`), its signals stay as they were, and the
rule above brings the user under the cap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from agent_signals.core.actions import Count
from agent_signals.core.cap_plan import CoreRow, OwnRow, Shown, plan_cap, same_core, shown
from agent_signals.core.outcome import Provenance
from agent_signals.core.prompting.answers import InvalidAnswer, ReconcileAnswer
from agent_signals.core.prompting.prompts import CoreLine
from agent_signals.core.screening.redaction import redacting_logger
from agent_signals.limits import CORE_CAP
from agent_signals.store.shard_writer import ShardWriter

log = redacting_logger(__name__)

# Given the user's core lines, their own lines and the cap, returns the parsed answer of one model call.
Decide = Callable[[list[CoreLine], list[CoreLine], int], Awaitable[ReconcileAnswer]]


class CapCrossed(Exception):
    """Raised inside the write transaction (rolling it back) when its writes took users over the cap and the
    model has not been asked yet; carries what to show it, by user."""

    def __init__(self, shown: dict[str, Shown]) -> None:
        super().__init__(f"{len(shown)} user(s) over a core cap of {CORE_CAP}")
        self.shown = shown


@dataclass(frozen=True)
class Reconciliation:
    """The model's answer (None: unusable or failed) for the core set it was shown."""

    shown: Shown
    answer: ReconcileAnswer | None
    counts: Counter[Count] = field(default_factory=Counter)  # reconcile_invalid, reconcile_failed


async def reconcile(decide: Decide, shown: Shown, user_id: str) -> Reconciliation:
    """One model call for the user's core set, made with no transaction open; never raises (a failed or
    unusable answer leaves the cap to the rule)."""
    counts: Counter[Count] = Counter()
    try:
        answer = await decide(list(shown.core), list(shown.own), CORE_CAP)
    except InvalidAnswer as exc:
        log.warning("user %s: reconciliation answer rejected (%s); the cap rule decides", user_id, exc)
        counts[Count.RECONCILE_INVALID] += 1
        answer = None
    except Exception as exc:  # the model is unavailable: the deterministic rule still holds the cap
        log.warning("user %s: reconciliation call failed (%s); the cap rule decides", user_id, exc)
        counts[Count.RECONCILE_FAILED] += 1
        answer = None
    return Reconciliation(shown, answer, counts)


async def enforce_caps(
    writer: ShardWriter,
    provs: dict[str, Provenance],
    reconciliations: dict[str, Reconciliation],
    *,
    ask: bool,
) -> None:
    """Bring the writer's touched users back under the cap, within its open transaction (one query for all of
    them). Users over the cap with `ask` and no reconciliation yet: raises CapCrossed (the caller rolls back
    and reconciles them)."""
    users = sorted(u for u, touched in writer.touched.items() if touched)
    if not users:
        return
    over = {u: rows for u, rows in (await writer.core_signals(users)).items() if len(rows[0]) > CORE_CAP}
    crossed = {u: shown(core, own) for u, (core, own) in over.items() if ask and u not in reconciliations}
    if crossed:
        raise CapCrossed(crossed)
    for user_id, (core, own) in over.items():
        await _enforce(writer, user_id, provs[user_id], core, own, reconciliations.get(user_id))


async def _enforce(
    writer: ShardWriter, user_id: str, prov: Provenance, core: list[CoreRow], own: list[OwnRow],
    reconciliation: Reconciliation | None,
) -> None:  # fmt: skip
    counts = writer.counts[user_id]
    answer = None
    if reconciliation is not None:
        asked = same_core(reconciliation.shown, core, own)
        if asked is not None:
            core, answer = asked, reconciliation.answer  # the handles the model was shown
        else:
            log.warning(
                "user %s: the core set changed since the model was asked; the cap rule decides", user_id
            )
            counts[Count.RECONCILE_STALE] += 1
    plan = plan_cap(core, own, answer, language=writer.settings.screening.signal_language)
    if plan.invalid is not None:
        log.warning(
            "user %s: reconciliation answer rejected (%s); the cap rule decides", user_id, plan.invalid
        )
        counts[Count.RECONCILE_INVALID] += 1
    for reason in plan.refused:
        log.warning("user %s: a merge was refused: its text %s", user_id, reason)
        counts[Count.MERGE_REFUSED] += 1
    for merge in plan.merges:
        await writer.merge(user_id, prov, merge.survivor, merge.absorbed, merge.content)
    for demote in plan.demotes:
        await writer.demote(user_id, prov, demote.row, demote.reason)
