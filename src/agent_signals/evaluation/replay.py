"""`agent-signals replay`: a candidate prompt over historical messages, compared with the signals stored now,
without writing anything.

A replay is a dry run of the run's own stages over the window (shards.process_shard: load -> extract ->
validate -> screen -> quality gate -> embed -> apply, with reconciliation when a write crosses the core cap),
with two differences (context.Rehearsal). The model is shown the user's own signals, never the inferred
ones, so it states what it would have learned. And each user's apply happens in a transaction that is
always rolled back, in which the user's active inferred signals citing a message of the window are first set
aside, so that the candidate's proposals are applied as if the window had never been extracted: under every
rule of a run (tombstones, the user's own signals, the cap). What apply wrote there is then paired with the
signals set aside: the same text, or a shared evidence message and similar text (evaluation.matching's rule).
Paired with another text: would change; same text, other tier: would re-tier; unpaired written signal:
would add; unpaired stored signal: would drop. Being a dry run, it records no ledger row and no failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from uuid import uuid4

import polars as pl
import psycopg

from agent_signals.config import Settings
from agent_signals.core.batching import UserBatch, prompt_version
from agent_signals.core.text import normalize_content as normalize
from agent_signals.evaluation.matching import GoldFact, StoredSignal, match
from agent_signals.stages import context, lifecycle, scan
from agent_signals.stages import shards as sharding
from agent_signals.store import evaluation as rehearsal
from agent_signals.store.source import Window


@dataclass
class Diff:
    add: list[StoredSignal] = field(default_factory=list)
    drop: list[StoredSignal] = field(default_factory=list)
    change: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)  # (stored, written)
    retier: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)
    unchanged: int = 0

    def sort(self) -> None:
        """Users are applied concurrently: list the differences by user and text."""
        key = lambda s: (s.user_id, s.content)  # noqa: E731
        self.add.sort(key=key)
        self.drop.sort(key=key)
        self.change.sort(key=lambda pair: key(pair[0]))
        self.retier.sort(key=lambda pair: key(pair[0]))


SIDE = {"at": pl.UInt32, "text": pl.String, "tier": pl.String}  # a side of compare(): position, key, tier


def _side(signals: list[StoredSignal]) -> pl.DataFrame:
    """One side's signals by position, keyed by normalized text and by which occurrence of that text it is."""
    rows = [(i, normalize(s.content), s.tier) for i, s in enumerate(signals)]
    frame = pl.DataFrame(rows, schema=SIDE, orient="row")
    return frame.with_columns(nth=pl.int_range(pl.len(), dtype=pl.UInt32).over("text"))


def compare(written: list[StoredSignal], stored: list[StoredSignal], into: Diff) -> None:
    """Pair one user's written signals with their stored ones (same text first, then evidence + text).

    Same text is a join: the k-th written signal of a text pairs with the k-th stored one of it (what taking,
    for each written signal in turn, the first stored one of its text left gives). The rest are paired one
    by one with the evaluation's matcher, each written signal taking its best match among the stored ones
    left, in order (pairwise, in Python)."""
    mine, theirs = _side(written), _side(stored)
    same = mine.join(theirs, on=["text", "nth"], suffix="_stored").sort("at")
    into.unchanged += same.filter(pl.col("tier") == pl.col("tier_stored")).height
    into.retier.extend(
        (stored[s], written[w])
        for w, s in same.filter(pl.col("tier") != pl.col("tier_stored")).select("at", "at_stored").iter_rows()
    )
    rest = [written[w] for w in mine.join(same, on="at", how="anti").sort("at")["at"]]
    left = [
        stored[s] for s in theirs.join(same, left_on="at", right_on="at_stored", how="anti").sort("at")["at"]
    ]
    for w in rest:
        as_fact = [
            GoldFact(s.signal_id, s.user_id, s.content, True, s.evidence) for s in left
        ]  # a stored signal stands in for a gold fact: same rule as the evaluation's matcher
        found = match(w, as_fact)
        if found is None:
            into.add.append(w)
            continue
        paired = next(s for s in left if s.signal_id == found.fact_id)
        left.remove(paired)
        into.change.append((paired, w))
    into.drop.extend(left)


@dataclass
class Comparison:
    """The context.Rehearsal of a replay: shows the model the user's own signals only, sets the window's
    stored signals aside before apply, and compares them with what apply wrote."""

    settings: Settings
    window: Window
    spec: context.RunSpec
    diff: Diff = field(default_factory=Diff)
    stored: dict[str, list[StoredSignal]] = field(default_factory=dict)

    def shown(self, batch: UserBatch) -> UserBatch:
        return replace(batch, known=[k for k in batch.known if k.origin == "manual"])

    async def before_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None:
        await rehearsal.open_rehearsal_run(
            conn, self.settings, self.spec.run_id, self.settings.model, self.spec.prompt_version
        )
        self.stored[user_id] = await self._signals(conn, user_id, set_aside=True)

    async def after_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None:
        compare(await self._signals(conn, user_id, set_aside=False), self.stored.pop(user_id), self.diff)

    async def _signals(
        self, conn: psycopg.AsyncConnection, user_id: str, *, set_aside: bool
    ) -> list[StoredSignal]:
        rows = await rehearsal.window_signals(conn, self.settings, self.window, user_id, set_aside=set_aside)
        return [StoredSignal(*row) for row in rows]


async def replay(settings: Settings, window: Window) -> tuple[Diff, dict]:
    """Replay `settings.prompt_version` over the window and compare; returns the diff and the figures of the
    model calls (calls, tokens, cost) and of what apply did (actions, e.g. skipped_tombstone)."""
    spec = context.RunSpec(settings, uuid4(), "replay", window, prompt_version(settings), True, (0, 0.0))
    comparison = Comparison(settings, window, spec)
    async with lifecycle.join_run(spec) as ctx:
        ctx.rehearsal = comparison
        for shard in sharding.shards(await scan.scan(ctx), settings):
            await sharding.process_shard(ctx, list(shard.user_ids))
    comparison.diff.sort()
    s = ctx.stats
    usage = {
        "prompt_version": spec.prompt_version,
        "users": s.users,
        "messages": s.messages,
        "llm_calls": s.llm_calls,
        "prompt_tokens": s.prompt_tokens,
        "completion_tokens": s.completion_tokens,
        "cost_usd": round(s.cost_usd, 6),
        "failures": s.failures,
        "actions": dict(sorted(s.actions.items())),
    }
    return comparison.diff, usage
