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
would add; unpaired stored signal: would drop. Any pair (same text or not) whose scope differs (agent_id:
the profile or which agent) would re-scope, and one whose validity differs (valid_from or valid_to) would
change validity; a pair may be listed under several of these, and is unchanged when under none. Being a
dry run, it records no ledger row and no failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from uuid import uuid4

import polars as pl
import psycopg

from agent_signals.config import Settings
from agent_signals.core.prompting.extract_calls import UserMessages, prompt_version
from agent_signals.core.text import normalize_content
from agent_signals.evaluation.matching import GoldFact, StoredSignal, match
from agent_signals.stages import scan
from agent_signals.stages.run import context, lifecycle, sharding
from agent_signals.store import evaluation
from agent_signals.store.source import Window


@dataclass
class Diff:
    add: list[StoredSignal] = field(default_factory=list)
    drop: list[StoredSignal] = field(default_factory=list)
    change: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)  # (stored, written)
    retier: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)
    rescope: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)  # other agent_id
    revalidity: list[tuple[StoredSignal, StoredSignal]] = field(default_factory=list)  # other valid_from/to
    unchanged: int = 0

    def sort(self) -> None:
        """Users are applied concurrently: list the differences by user and text."""
        key = lambda s: (s.user_id, s.content)  # noqa: E731
        self.add.sort(key=key)
        self.drop.sort(key=key)
        self.change.sort(key=lambda pair: key(pair[0]))
        for pairs in (self.retier, self.rescope, self.revalidity):
            pairs.sort(key=lambda pair: key(pair[0]))


# a side of compare(): position, key (normalized text, and the agent: "" for the profile)
SIDE = {"at": pl.UInt32, "text": pl.String, "agent": pl.String}


def _side(signals: list[StoredSignal]) -> pl.DataFrame:
    """One side's signals by position, keyed by normalized text and scope."""
    rows = [(i, normalize_content(s.content), s.agent_id or "") for i, s in enumerate(signals)]
    return pl.DataFrame(rows, schema=SIDE, orient="row")


def _same_text(mine: pl.DataFrame, theirs: pl.DataFrame, on: list[str]) -> pl.DataFrame:
    """The k-th written signal of a key paired with the k-th stored one of it (what taking, for each written
    signal in turn, the first stored one of its key left gives): `at` and `at_stored`."""
    nth = pl.int_range(pl.len(), dtype=pl.UInt32).over(on).alias("nth")
    return mine.with_columns(nth).join(theirs.with_columns(nth), on=[*on, "nth"], suffix="_stored")


def _differences(w: StoredSignal, s: StoredSignal, into: Diff, *, tier: bool) -> bool:
    """List the pair (stored, written) under each way it differs (the tier only for the same text)."""
    found = False
    # a start given where none was known (a signal from before validity, m022) is a fill, not listed
    starts_known = s.valid_from is not None and w.valid_from is not None
    revalidated = w.valid_to != s.valid_to or (starts_known and w.valid_from != s.valid_from)
    for differs, pairs in (
        (tier and w.tier != s.tier, into.retier),
        (w.agent_id != s.agent_id, into.rescope),
        (revalidated, into.revalidity),
    ):
        if differs:
            pairs.append((s, w))
            found = True
    return found


def compare(written: list[StoredSignal], stored: list[StoredSignal], into: Diff) -> None:
    """Pair one user's written signals with their stored ones (same text first, then evidence + text).

    Same text is a join: the same text in the same scope first, then the same text in another scope (a
    re-scoped fact). The rest are paired one by one with the evaluation's matcher, each written signal taking
    its best match among the stored ones left, in order (pairwise, in Python)."""
    mine, theirs = _side(written), _side(stored)
    scoped = _same_text(mine, theirs, ["text", "agent"])
    unscoped = _same_text(
        mine.join(scoped, on="at", how="anti"),
        theirs.join(scoped, left_on="at", right_on="at_stored", how="anti"),
        ["text"],
    )
    same = pl.concat([scoped.select("at", "at_stored"), unscoped.select("at", "at_stored")]).sort("at")
    for w, s in same.iter_rows():
        if not _differences(written[w], stored[s], into, tier=True):
            into.unchanged += 1
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
        _differences(w, paired, into, tier=False)
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

    def shown(self, user: UserMessages) -> UserMessages:
        return replace(user, known=[k for k in user.known if k.origin == "manual"])

    async def before_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None:
        await evaluation.open_rehearsal_run(
            conn, self.spec.run_id, self.settings.model.name, self.spec.prompt_version
        )
        self.stored[user_id] = await self._signals(conn, user_id, set_aside=True)

    async def after_apply(self, conn: psycopg.AsyncConnection, user_id: str) -> None:
        compare(await self._signals(conn, user_id, set_aside=False), self.stored.pop(user_id), self.diff)

    async def _signals(
        self, conn: psycopg.AsyncConnection, user_id: str, *, set_aside: bool
    ) -> list[StoredSignal]:
        rows = await evaluation.window_signals(conn, self.window, user_id, set_aside=set_aside)
        return [StoredSignal(*row) for row in rows]


async def replay(settings: Settings, window: Window) -> tuple[Diff, dict]:
    """Replay `settings.model.prompt_version` over the window and compare; returns the diff and the figures of the
    model calls (calls, tokens, cost) and of what apply did (actions, e.g. skipped_tombstone)."""
    spec = context.RunSpec(settings, uuid4(), "replay", window, prompt_version(settings), True, (0, 0.0))
    comparison = Comparison(settings, window, spec)
    async with lifecycle.join_run(spec) as ctx:
        ctx.rehearsal = comparison
        for shard in sharding.shards(await scan.scan(ctx), settings):
            await sharding.process_shard(ctx, list(shard.user_ids))
    context.raise_if_stopped(ctx)  # a misconfigured model: its error, not an empty difference
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
