"""Extraction quality against gold facts: the dataset, its score, and a run of the real flow to score.

A dataset has the shape of ../shared/data/msc-valid.json: `conversations[]` as `agent-signals load` takes
them; `users[].facts[]` (`text`, `expected_signal`, `evidence[]` of `conversation_id` + `message_index`,
optionally `kind_hint`, `tier_hint`, `negative_kind`); `users[].distractor_facts[]`, facts about the other
speaker.

Scoring, with evaluation.matching's matcher (documented in docs/evaluation.md, tested in tests/test_evaluate.py):
- precision: signals matching a fact with expected_signal true / all signals (each signal's verdict is its
  most similar fact);
- recall: expected facts credited to at least one signal / expected facts (a signal is credited with every
  fact it matches: a consolidated signal finds each). A fact found by two signals counts once. The
  single-match recall (only each signal's most similar fact found) is reported beside it for comparison;
- wrong-speaker: signals matching no fact of their user but stating one of the other speaker's facts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.evaluation.matching import GoldFact, StoredSignal, credits, wrong_speaker
from agent_signals.store.load import default_message_id


class DatasetError(AgentSignalsError):
    """An evaluation dataset that cannot be read."""


@dataclass(frozen=True)
class Dataset:
    conversations: list[dict]
    facts: list[GoldFact]
    distractors: list[GoldFact]
    users: list[str]


def read_dataset(raw: object, source: str, limit_users: int | None = None) -> Dataset:
    """The first `limit_users` users of a dataset, with their conversations and facts; every evidence
    message resolved to the message id `agent-signals load` gives it."""
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("users"), list)
        or not isinstance(raw.get("conversations"), list)
    ):
        raise DatasetError(
            f"{source}: not an evaluation dataset (needs `users` and `conversations` lists)",
            hint="see ../shared/data/msc-valid.json or eval/workplace-signals.json for the shape",
        )
    users = raw["users"][:limit_users] if limit_users else raw["users"]
    wanted = {str(u.get("user_id")) for u in users}
    conversations = [c for c in raw["conversations"] if c.get("user_id") in wanted]
    ids: dict[tuple[str, int], str] = {}
    for c in conversations:
        for index, message in enumerate(c.get("messages") or []):
            ids[str(c.get("conversation_id")), index] = message.get("message_id") or default_message_id(index)

    def facts_of(user: dict, key: str, u_index: int) -> list[GoldFact]:
        out = []
        for f_index, fact in enumerate(user.get(key) or []):
            where = f"{source}: users[{u_index}].{key}[{f_index}]"
            try:
                evidence = frozenset(
                    (str(e["conversation_id"]), ids[str(e["conversation_id"]), int(e["message_index"])])
                    for e in fact.get("evidence") or []
                )
                out.append(
                    GoldFact(
                        str(fact.get("fact_id") or f"{user['user_id']}:{key}:{f_index}"),
                        str(user["user_id"]),
                        str(fact["text"]),
                        bool(fact.get("expected_signal", key == "facts")),
                        evidence,
                        fact.get("kind_hint"),
                        fact.get("tier_hint"),
                        fact.get("negative_kind"),
                    )
                )
            except KeyError as exc:
                raise DatasetError(
                    f"{where}: missing or unknown {exc} (evidence must point at a message of a conversation "
                    "of the dataset)",
                    hint="each fact needs `text` and `evidence[]` of `conversation_id` + `message_index`",
                ) from exc
        return out

    facts = [f for i, u in enumerate(users) for f in facts_of(u, "facts", i)]
    distractors = [f for i, u in enumerate(users) for f in facts_of(u, "distractor_facts", i)]
    return Dataset(conversations, facts, distractors, [str(u["user_id"]) for u in users])


@dataclass
class Report:
    signals: int = 0
    correct: int = 0  # signals matching an expected fact
    expected_facts: int = 0
    found_facts: int = 0  # expected facts credited to a signal (credits(): a consolidated signal finds each)
    found_single: int = 0  # expected facts that are some signal's single best match (the matcher before)
    wrong_speaker: int = 0
    negative_hits: Counter[str] = field(default_factory=Counter)  # signals matching a negative fact, by kind
    tier_checked: int = 0
    tier_right: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))
    # kind -> [signals, correct signals, expected facts, found facts]

    @property
    def precision(self) -> float:
        return self.correct / self.signals if self.signals else 0.0

    @property
    def recall(self) -> float:
        return self.found_facts / self.expected_facts if self.expected_facts else 0.0

    @property
    def recall_single(self) -> float:
        return self.found_single / self.expected_facts if self.expected_facts else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {
            "signals": self.signals,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "expected_facts": self.expected_facts,
            "found_facts": self.found_facts,
            "recall_single_match": round(self.recall_single, 4),
            "found_facts_single_match": self.found_single,
            "wrong_speaker": self.wrong_speaker,
            "wrong_speaker_rate": round(self.wrong_speaker / self.signals, 4) if self.signals else 0.0,
            "negative_hits": dict(sorted(self.negative_hits.items())),
            "tier_accuracy": round(self.tier_right / self.tier_checked, 4) if self.tier_checked else None,
            "by_kind": {
                kind: {
                    "signals": s,
                    "precision": round(c / s, 4) if s else None,
                    "expected_facts": e,
                    "recall": round(f / e, 4) if e else None,
                }
                for kind, (s, c, e, f) in sorted(self.by_kind.items())
            },
        }


def score(signals: Sequence[StoredSignal], dataset: Dataset) -> Report:
    report = Report()
    facts_by_user: dict[str, list[GoldFact]] = defaultdict(list)
    for fact in dataset.facts:
        facts_by_user[fact.user_id].append(fact)
    distractors_by_user: dict[str, list[GoldFact]] = defaultdict(list)
    for fact in dataset.distractors:
        distractors_by_user[fact.user_id].append(fact)
    found: set[str] = set()
    found_single: set[str] = set()
    for signal in signals:
        report.signals += 1
        report.by_kind[signal.kind][0] += 1
        stated = credits(signal, facts_by_user[signal.user_id])
        found.update(f.fact_id for f in stated if f.expected)
        fact = stated[0] if stated else None  # the signal's verdict: its most similar fact
        if fact is not None and fact.expected:
            report.correct += 1
            report.by_kind[signal.kind][1] += 1
            found_single.add(fact.fact_id)
            if fact.tier in ("core", "contextual"):
                report.tier_checked += 1
                report.tier_right += fact.tier == signal.tier
        elif fact is not None:
            report.negative_hits[fact.negative_kind or "unlabelled"] += 1
        elif wrong_speaker(signal, distractors_by_user[signal.user_id]):
            report.wrong_speaker += 1
    for fact in dataset.facts:
        if fact.expected:
            report.expected_facts += 1
            kind = fact.kind or "unlabelled"
            report.by_kind[kind][2] += 1
            if fact.fact_id in found:
                report.found_facts += 1
                report.by_kind[kind][3] += 1
            report.found_single += fact.fact_id in found_single
    return report


def run(settings: Settings, dataset: Dataset, model: str | None = None) -> tuple[Report, dict]:
    """Load the dataset into a scratch database on the project's server (never the project's own
    database), run the real scheduled flow on it with `model` (default: the configured one), score what it
    stored. Returns the report and the run's summary (calls, tokens, cost)."""
    import asyncio

    from agent_signals.flows.extract import extract_signals
    from agent_signals.store import db
    from agent_signals.store.evaluation import stored_signals
    from agent_signals.store.load import ConversationsFile, store

    data = ConversationsFile.model_validate({"conversations": dataset.conversations})
    with db.scratch_database(settings, "eval") as url:
        # always direct: eval scores what the model answers now, not what a later run would collect
        scratch = settings.model_copy(
            update={"database_url": url, "batch_mode": "off", **({"model": model} if model else {})}
        )
        with db.connect(url, autocommit=True) as conn:
            store(conn, scratch, data)
        summary = asyncio.run(extract_signals(kind="manual", settings=scratch))
        with db.connect(url, autocommit=True) as conn:
            signals = [StoredSignal(*row) for row in stored_signals(conn, settings)]
    return score(signals, dataset), summary
