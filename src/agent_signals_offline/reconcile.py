"""The offline model's answer to prompts/reconcile/v1: merge near-duplicate core signals of one kind, then
demote the least reinforced (fewest mentions, longest unseen) until the cap holds. Deterministic."""

from __future__ import annotations

from agent_signals.core.prompting.prompts import CoreLine
from agent_signals_offline.embed import embed

MERGE_SIMILARITY = 0.85  # cosine of the offline embeddings: near-duplicates only
MAX_GROUP = 20


def similarity(a: str, b: str) -> float:
    return sum(x * y for x, y in zip(embed(a, 256), embed(b, 256), strict=True))


def decide(core: list[CoreLine], own: list[CoreLine], cap: int) -> list[dict]:
    """Decisions that leave at most `cap` core signals. The user's own signals are never named."""
    decisions: list[dict] = []
    absorbed: set[str] = set()
    for i, first in enumerate(core):
        if first.handle in absorbed:
            continue
        alike = [
            other
            for other in core[i + 1 :]
            if other.handle not in absorbed
            and other.kind == first.kind
            and similarity(first.content, other.content) >= MERGE_SIMILARITY
        ]
        group = [first, *alike[: MAX_GROUP - 1]]
        if len(group) > 1:
            absorbed.update(s.handle for s in group)
            longest = max(group, key=lambda s: (len(s.content), s.mentions))
            decisions.append(
                {"action": "merge", "signals": [s.handle for s in group], "content": longest.content}
            )
    merges = sum(1 for d in decisions if d["action"] == "merge")
    remaining = len(core) - len(absorbed) + merges
    survivors = [s for s in core if s.handle not in absorbed]
    for signal in sorted(survivors, key=lambda s: (s.mentions, s.last_seen, s.handle)):
        if remaining <= cap:
            break
        decisions.append({"action": "demote", "signal": signal.handle})
        remaining -= 1
    return decisions
