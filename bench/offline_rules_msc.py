"""Precision and recall of the offline model's rules on msc-valid, at message level, beside a naive
first-person regex measured in the same run.

A produced signal is correct when a message it cites is evidence of one of the user's gold facts that is
expected to be a signal; recall is the share of those gold facts with at least one evidence message cited.
Users are replayed session by session, each session's creates fed back as known signals (as the pipeline
does), so restatements become updates. Pure Python: no database, no model server.

    python bench/offline_rules_msc.py [--data ../shared/data/msc-valid.json] [--users 100 | --all]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from agent_signals.config import DEFAULT_KINDS
from agent_signals.offline import rules

ROOT = Path(__file__).resolve().parents[1]
NAIVE = re.compile(r"\b(?:I am|I'm|I have|I've|I work|I live|I love|I like|my)\b", re.I)


def replay(user: dict, conversations: list[dict], extractor) -> list[set[tuple[str, int]]]:
    """Each produced signal as the set of (conversation, message index) it cites."""
    known: list[rules.Known] = []
    produced: dict[str, set[tuple[str, int]]] = {}
    for conv in conversations:
        if not conv["extract"]:
            continue
        handles = {}
        messages = []
        for index, message in enumerate(conv["messages"]):
            if message["role"] == "user":
                handle = f"m{len(messages) + 1}"
                handles[handle] = (conv["conversation_id"], index)
                messages.append(rules.Message(handle, message["content"]))
        for action in extractor(messages, known):
            key = action["signal"] if action["action"] == "update" else f"s{len(produced) + 1}"
            cited = {handles[e["message"]] for e in action["evidence"]}
            produced.setdefault(key, set()).update(cited)
            if action["action"] == "create" and "content" in action:
                known.append(rules.Known(key, action["content"], action["tier"], action["kind"], "inferred"))
    return list(produced.values())


def offline(messages, known):
    return rules.extract(messages, known, DEFAULT_KINDS)


def naive(messages, _known):
    return [
        {"action": "create", "evidence": [{"message": m.handle, "quote": m.text}]}
        for m in messages
        if NAIVE.search(m.text) and not m.text.rstrip().endswith("?")
    ]


def score(users: list[dict], by_user: dict[str, list[dict]], extractor) -> dict:
    signals = correct = wrong_speaker = gold_total = gold_found = 0
    messages = 0
    started = time.perf_counter()
    for user in users:
        conversations = by_user[user["user_id"]]
        messages += sum(
            1 for c in conversations if c["extract"] for m in c["messages"] if m["role"] == "user"
        )
        produced = replay(user, conversations, extractor)
        gold = [f for f in user["facts"] if f.get("expected_signal")]
        gold_evidence = {(e["conversation_id"], e["message_index"]) for f in gold for e in f["evidence"]}
        distractor = {
            (e["conversation_id"], e["message_index"])
            for f in user.get("distractor_facts", [])
            for e in f["evidence"]
        }
        cited_all = set().union(*produced) if produced else set()
        for cited in produced:
            signals += 1
            if cited & gold_evidence:
                correct += 1
            elif cited & distractor:
                wrong_speaker += 1
        gold_total += len(gold)
        gold_found += sum(
            1 for f in gold if {(e["conversation_id"], e["message_index"]) for e in f["evidence"]} & cited_all
        )
    seconds = time.perf_counter() - started
    precision = correct / signals if signals else 1.0
    recall = gold_found / gold_total if gold_total else 1.0
    return {
        "signals": signals,
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0,
        "wrong_speaker": wrong_speaker,
        "signals_per_user": round(signals / len(users), 2),
        "us_per_message": round(seconds / messages * 1e6, 1) if messages else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--all", action="store_true", help="every user of the file")
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (median reported)")
    args = parser.parse_args()

    data = json.loads(args.data.read_text())
    users = data["users"] if args.all else data["users"][: args.users]
    by_user: dict[str, list[dict]] = {}
    for conv in data["conversations"]:
        by_user.setdefault(conv["user_id"], []).append(conv)

    results = {}
    for name, extractor in (("naive regex", naive), ("offline/rules", offline)):
        runs = [score(users, by_user, extractor) for _ in range(args.repeat)]
        result = runs[0] | {"us_per_message": statistics.median(r["us_per_message"] for r in runs)}
        results[name] = result
    print(f"msc-valid, {len(users)} users, message-level scoring")
    print(
        f"{'extractor':<15} {'signals':>8} {'precision':>9} {'recall':>7} {'f1':>6} {'wrong spk':>9} {'us/msg':>7}"
    )
    for name, r in results.items():
        print(
            f"{name:<15} {r['signals']:>8} {r['precision']:>9.3f} {r['recall']:>7.3f} {r['f1']:>6.3f} "
            f"{r['wrong_speaker']:>9} {r['us_per_message']:>7.1f}"
        )
    print(json.dumps({"users": len(users), **results["offline/rules"], "naive": results["naive regex"]}))


if __name__ == "__main__":
    main()
