"""`agent-signals replay`: a candidate prompt over historical messages, compared with the signals stored now,
without writing anything.

For each user with flagged messages in the window, the candidate prompt extracts from scratch (the model is
shown the user's own signals, never the inferred ones, so it states what it would have learned), through the
same extraction, validation and screening as a run. The candidate signals are then paired with the user's
active inferred signals citing a message of the window: the same text, or a shared evidence message and
similar text (evaluate.match's rule). Paired with another text: would change; same text, other tier: would
re-tier; unpaired candidate: would add; unpaired stored signal: would drop.

Read-only by construction: every connection is opened with default_transaction_read_only, so even a bug
could not write.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from uuid import uuid4

from psycopg.conninfo import make_conninfo

from agent_signals import db, evaluate, pipeline
from agent_signals.config import Settings
from agent_signals.extract import prompt_version
from agent_signals.source import Window, load_batches
from agent_signals.sqlfiles import query
from agent_signals.text import normalize_content as normalize


@dataclass(frozen=True)
class Candidate:
    user_id: str
    content: str
    tier: str
    kind: str
    evidence: frozenset[evaluate.MessageKey]


@dataclass
class Diff:
    add: list[Candidate] = field(default_factory=list)
    drop: list[evaluate.StoredSignal] = field(default_factory=list)
    change: list[tuple[evaluate.StoredSignal, Candidate]] = field(default_factory=list)
    retier: list[tuple[evaluate.StoredSignal, Candidate]] = field(default_factory=list)
    unchanged: int = 0


def compare(candidates: list[Candidate], stored: list[evaluate.StoredSignal], into: Diff) -> None:
    """Pair one user's candidates with their stored signals (same text first, then evidence + text)."""
    left = list(stored)
    rest: list[Candidate] = []
    for c in candidates:
        same = next((s for s in left if normalize(s.content) == normalize(c.content)), None)
        if same is None:
            rest.append(c)
            continue
        left.remove(same)
        if same.tier == c.tier:
            into.unchanged += 1
        else:
            into.retier.append((same, c))
    for c in rest:
        as_fact = [
            evaluate.GoldFact(s.signal_id, s.user_id, s.content, True, s.evidence) for s in left
        ]  # a stored signal stands in for a gold fact: same rule as the evaluation's matcher
        probe = evaluate.StoredSignal("candidate", c.user_id, c.content, c.kind, c.tier, c.evidence)
        found = evaluate.match(probe, as_fact)
        if found is None:
            into.add.append(c)
            continue
        paired = next(s for s in left if s.signal_id == found.fact_id)
        left.remove(paired)
        into.change.append((paired, c))
    into.drop.extend(left)


def read_only(settings: Settings) -> Settings:
    url = make_conninfo(db.database_url(settings), options="-c default_transaction_read_only=on")
    return settings.model_copy(update={"database_url": url})


async def replay(settings: Settings, window: Window) -> tuple[Diff, dict]:
    """Extract with `settings.prompt_version` over the window and compare; returns the diff and the
    figures of the model calls (calls, tokens, cost)."""
    safe = read_only(settings)
    spec = pipeline.RunSpec(safe, uuid4(), "replay", window, prompt_version(safe), True, (0, 0.0))
    diff = Diff()
    async with pipeline.join_run(spec) as ctx:
        pending = await pipeline.scan(ctx)
        for shard in pipeline.shards(pending, safe):
            async with ctx.pool.connection() as conn:
                batches = await load_batches(conn, safe, list(shard.user_ids), window)
                params = {"user_ids": list(shard.user_ids), **window.params}
                rows = await (await conn.execute(query(safe, "replay_stored_signals"), params)).fetchall()
            stored: dict[str, list[evaluate.StoredSignal]] = {}
            for sid, user, content, kind, tier, conversations, messages in rows:
                evidence = frozenset(zip(conversations, messages, strict=True))
                stored.setdefault(user, []).append(
                    evaluate.StoredSignal(sid, user, content, kind, tier, evidence)
                )
            fresh = [replace(b, known=[k for k in b.known if k.origin == "manual"]) for b in batches]
            results = await asyncio.gather(*(_extract(ctx, batch) for batch in fresh))
            for batch, candidates in zip(fresh, results, strict=True):
                compare(candidates, stored.get(batch.user_id, []), diff)
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
    }
    return diff, usage


async def _extract(ctx: pipeline.RunContext, batch) -> list[Candidate]:
    """The candidate prompt's signals for one user (none when the call or its answer failed: counted)."""
    async with ctx.pacing.model_slots:
        ctx.stats.users += 1
        ctx.stats.messages += len(batch.messages)
        try:
            extracted = await pipeline.extract_user(ctx, batch)
        except Exception as exc:  # the model failed or answered badly: reported, nothing compared
            ctx.stats.failures += 1
            ctx.stats.warnings.append(f"{batch.user_id}: {type(exc).__name__}: {str(exc)[:200]}")
            return []
    return [
        Candidate(
            batch.user_id,
            p.content,
            p.tier,
            p.kind,
            frozenset((c.message.conversation_id, c.message.message_id) for c in p.evidence),
        )
        for p in extracted.proposals
    ]
