"""Extraction quality against gold facts: the dataset, its score, and a run of the real flow to score.

A dataset has the shape of ../shared/data/msc-valid.json: `conversations[]` as `agent-signals load` takes
them; `users[].facts[]` (`text`, `expected_signal`, `evidence[]` of `conversation_id` + `message_index`,
optionally `kind_hint`, `tier_hint`, `negative_kind`, and `scope_hint` ("profile", the default, or "agent":
about the user's relationship with the agent of the conversation that states it), `valid_from_hint` and
`valid_to_hint` ("YYYY", "YYYY-MM" or "YYYY-MM-DD": when the fact began and stopped holding));
`users[].distractor_facts[]`, facts about the other speaker.

Scoring, with evaluation.matching's matcher (documented in docs/evaluation.md, tested in tests/test_evaluate.py):
- precision: signals matching a fact with expected_signal true / all signals (each signal's verdict is its
  most similar fact);
- recall: expected facts credited to at least one signal / expected facts (a signal is credited with every
  fact it matches: a consolidated signal finds each). A fact found by two signals counts once. The
  single-match recall (only each signal's most similar fact found) is reported beside it for comparison;
- wrong-speaker: signals matching no fact of their user but stating one of the other speaker's facts;
- scope and validity accuracy over the expected facts found, each judged on its most similar signal
  (evaluation.accuracy).

The matcher is pairwise and stays Python (matches()); what is counted from its verdicts (the totals, the
negatives by kind, the tables by kind) is polars joins and aggregations over frames of them (score()).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.evaluation.accuracy import Tally, judged_pairs, scope_tallies, validity_tallies
from agent_signals.evaluation.matching import GoldFact, StoredSignal, credits, period, wrong_speaker
from agent_signals.store.loading.load import default_message_id


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
    agents = {str(c.get("conversation_id")): c.get("agent_id") for c in conversations}
    for c in conversations:
        for index, message in enumerate(c.get("messages") or []):
            ids[str(c.get("conversation_id")), index] = message.get("message_id") or default_message_id(index)

    def scope_of(fact: dict, evidence: frozenset[tuple[str, str]], where: str) -> str | None:
        """The agent a fact labelled `scope_hint: agent` is about: that of the conversations it cites."""
        hint = fact.get("scope_hint", "profile")
        if hint == "profile":
            return None
        cited = {agents[c] for c, _m in evidence}
        if hint != "agent" or len(cited) != 1 or None in cited:
            raise DatasetError(
                f"{where}: scope_hint {hint!r} needs evidence in conversations of exactly one agent "
                f"(cited: {sorted(cited, key=str)})",
                hint='scope_hint is "profile" (the default) or "agent", for a fact said to one agent',
            )
        return cited.pop()

    def period_of(fact: dict, key: str, where: str):
        try:
            return period(fact[key]) if fact.get(key) is not None else None
        except ValueError as exc:
            raise DatasetError(
                f"{where}: {key} {exc}", hint="a validity hint is a year, a month or a day"
            ) from exc

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
                        scope_of(fact, evidence, where),
                        period_of(fact, "valid_from_hint", where),
                        period_of(fact, "valid_to_hint", where),
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


# The frames score() builds from the matcher's verdicts (`signal` and `fact` are positions in its inputs).
SIGNALS = {"signal": pl.UInt32, "kind": pl.String, "tier": pl.String, "wrong_speaker": pl.Boolean}
CREDITS = {"signal": pl.UInt32, "fact": pl.UInt32, "rank": pl.UInt32}  # rank 0: the signal's verdict
FACTS = {
    "fact": pl.UInt32,
    "fact_id": pl.String,
    "expected": pl.Boolean,
    "fact_kind": pl.String,  # kind_hint, "unlabelled" when missing
    "fact_tier": pl.String,
    "negative_kind": pl.String,  # "unlabelled" when missing
}
TIERED = ("core", "contextual")  # the tier hints tier accuracy is checked against
# Precision by the kind a signal was stored with, recall by the kind a gold fact is labelled with (kind_hint):
# two tables, since a fact may be found by a signal of another kind ("Studies law", stored personal, finds an
# education fact), so one row per kind would set a recall beside signals it does not come from.
BY_SIGNAL_KIND = {"kind": pl.String, "signals": pl.UInt32, "correct": pl.UInt32, "precision": pl.Float64}
BY_FACT_KIND = {
    "kind": pl.String,
    "expected_facts": pl.UInt32,
    "found_facts": pl.UInt32,
    "recall": pl.Float64,
}


def rounded(value: float | None) -> float | None:
    """A ratio as the report prints it: Python's round() to 4 places, which rounds the double's exact value.
    Not polars' round(4), which rounds value * 10^4 and gives another last digit for some fractions
    (1/160: 0.0062 there, 0.0063 here), so the division is polars' and the rounding stays here."""
    return None if value is None else round(value, 4)


@dataclass(frozen=True, eq=False)
class Report:
    signals: int = 0
    correct: int = 0  # signals matching an expected fact
    expected_facts: int = 0
    found_facts: int = 0  # expected facts credited to a signal (credits(): a consolidated signal finds each)
    found_single: int = 0  # expected facts that are some signal's single best match (the matcher before)
    wrong_speaker: int = 0
    negative_hits: dict[str, int] = field(default_factory=dict)  # signals matching a negative fact, by kind
    tier_checked: int = 0
    tier_right: int = 0
    scope: dict[str, Tally] = field(default_factory=lambda: scope_tallies([]))  # all, profile, agent
    validity: dict[str, Tally] = field(default_factory=lambda: validity_tallies([]))
    # all, valid_to (hinted), no_valid_to (must be null), valid_from (hinted): evaluation.accuracy
    by_signal_kind: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=BY_SIGNAL_KIND))
    # one row per kind the stored signals have: how many, how many right, precision
    by_fact_kind: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=BY_FACT_KIND))
    # one row per kind_hint of the expected facts ("unlabelled" without one): how many, how many found, recall

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
            "negative_hits": dict(self.negative_hits),
            "tier_accuracy": round(self.tier_right / self.tier_checked, 4) if self.tier_checked else None,
            "scope_accuracy": self.scope["all"].as_dict()["accuracy"],
            "scope": {label: tally.as_dict() for label, tally in self.scope.items()},
            "validity_accuracy": self.validity["all"].as_dict()["accuracy"],
            "validity": {part: tally.as_dict() for part, tally in self.validity.items()},
            "by_signal_kind": {
                row["kind"]: {
                    "signals": row["signals"],
                    "correct": row["correct"],
                    "precision": rounded(row["precision"]),
                }
                for row in self.by_signal_kind.iter_rows(named=True)
            },
            "by_fact_kind": {
                row["kind"]: {
                    "expected_facts": row["expected_facts"],
                    "found_facts": row["found_facts"],
                    "recall": rounded(row["recall"]),
                }
                for row in self.by_fact_kind.iter_rows(named=True)
            },
        }


def matches(signals: Sequence[StoredSignal], dataset: Dataset) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The matcher's pairwise verdicts as frames: each signal (SIGNALS; wrong_speaker only asked of a signal
    matching no fact of its user) and every fact of its user it is credited with, most similar first
    (CREDITS)."""
    position = {id(f): i for i, f in enumerate(dataset.facts)}
    facts_by_user: dict[str, list[GoldFact]] = defaultdict(list)
    for fact in dataset.facts:
        facts_by_user[fact.user_id].append(fact)
    distractors_by_user: dict[str, list[GoldFact]] = defaultdict(list)
    for fact in dataset.distractors:
        distractors_by_user[fact.user_id].append(fact)
    rows, credited = [], []
    for i, signal in enumerate(signals):
        stated = credits(signal, facts_by_user[signal.user_id])
        credited.extend((i, position[id(f)], rank) for rank, f in enumerate(stated))
        other = not stated and wrong_speaker(signal, distractors_by_user[signal.user_id])
        rows.append((i, signal.kind, signal.tier, other))
    return (
        pl.DataFrame(rows, schema=SIGNALS, orient="row"),
        pl.DataFrame(credited, schema=CREDITS, orient="row"),
    )


def facts_frame(facts: Sequence[GoldFact]) -> pl.DataFrame:
    rows = [
        (i, f.fact_id, f.expected, f.kind or "unlabelled", f.tier, f.negative_kind or "unlabelled")
        for i, f in enumerate(facts)
    ]
    return pl.DataFrame(rows, schema=FACTS, orient="row")


def score(signals: Sequence[StoredSignal], dataset: Dataset) -> Report:
    """The report's figures from the matcher's verdicts, as joins and aggregations of frames: each signal
    joined with its verdict (its most similar fact), the expected facts with the ids of those credited."""
    facts = facts_frame(dataset.facts)
    signal_rows, credited = matches(signals, dataset)
    verdicts = signal_rows.join(
        credited.filter(pl.col("rank") == 0).drop("rank").join(facts, on="fact"), on="signal", how="left"
    )  # fact columns null where the signal matches no fact
    right = pl.col("expected").fill_null(False)
    tiered = right & pl.col("fact_tier").is_in(TIERED)
    totals = verdicts.select(
        signals=pl.len(),
        correct=right.sum(),
        wrong_speaker=(pl.col("fact").is_null() & pl.col("wrong_speaker")).sum(),
        tier_checked=tiered.sum(),
        tier_right=(tiered & (pl.col("fact_tier") == pl.col("tier"))).sum(),
    ).row(0, named=True)
    negative_hits = dict(
        verdicts.filter(pl.col("expected").not_())
        .group_by("negative_kind")
        .len()
        .sort("negative_kind")
        .iter_rows()
    )
    found_ids = credited.join(facts, on="fact").filter("expected")["fact_id"]
    single_ids = verdicts.filter(right)["fact_id"]
    expected = facts.filter("expected").with_columns(
        found=pl.col("fact_id").is_in(found_ids.implode()),
        single=pl.col("fact_id").is_in(single_ids.implode()),
    )
    found = expected.select(
        expected_facts=pl.len(), found_facts=pl.col("found").sum(), found_single=pl.col("single").sum()
    ).row(0, named=True)
    by_signal_kind = (
        verdicts.group_by("kind")
        .agg(signals=pl.len(), correct=right.sum())
        .with_columns(precision=pl.col("correct") / pl.col("signals"))
        .sort("kind")
        .cast(BY_SIGNAL_KIND)
        .select(list(BY_SIGNAL_KIND))
    )
    by_fact_kind = (
        expected.group_by(pl.col("fact_kind").alias("kind"))
        .agg(expected_facts=pl.len(), found_facts=pl.col("found").sum())
        .with_columns(recall=pl.col("found_facts") / pl.col("expected_facts"))
        .sort("kind")
        .cast(BY_FACT_KIND)
        .select(list(BY_FACT_KIND))
    )
    judged = judged_pairs(dataset.facts, signals, credited.iter_rows())
    return Report(
        **totals,
        **found,
        negative_hits=negative_hits,
        by_signal_kind=by_signal_kind,
        by_fact_kind=by_fact_kind,
        scope=scope_tallies(judged),
        validity=validity_tallies(judged),
    )


def run(settings: Settings, dataset: Dataset, model: str | None = None) -> tuple[Report, dict]:
    """Load the dataset into a scratch database on the project's server (never the project's own
    database), run the real scheduled flow on it with `model` (default: the configured one), score what it
    stored. Returns the report and the run's summary (calls, tokens, cost)."""
    from agent_signals.flows.extract import extract_signals
    from agent_signals.flows.foreground import run_flow
    from agent_signals.store import database
    from agent_signals.store.evaluation import stored_signals
    from agent_signals.store.loading.load import ConversationsFile, store

    data = ConversationsFile.model_validate({"conversations": dataset.conversations})
    with database.scratch_database(settings, "eval") as url:
        # always direct: eval scores what the model answers now, not what a later run would collect
        scratch = settings.replace(database_url=url, batch_mode="off", **({"model": model} if model else {}))
        with database.connect(url, autocommit=True) as conn:
            store(conn, data)
        summary = run_flow(extract_signals(kind="manual", settings=scratch))  # explained errors said once
        with database.connect(url, autocommit=True) as conn:
            signals = [StoredSignal(*row) for row in stored_signals(conn)]
    return score(signals, dataset), summary
