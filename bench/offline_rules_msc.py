"""Precision and recall of the offline model's rules on msc-valid, at message level, beside a naive
first-person regex measured in the same run.

A produced signal is correct when a message it cites is evidence of one of the user's gold facts that is
expected to be a signal; recall is the share of those gold facts with at least one evidence message cited.
Users are replayed session by session, each session's creates fed back as known signals (as the pipeline
does), so restatements become updates. Pure Python: no database, no model server.

    python bench/offline_rules_msc.py [--data ../shared/data/msc-valid.json] [--users 100 | --all] [--show 20]

The data's evidence indices are checked before scoring: every fact's evidence should point at a message of
the user's own role, every distractor fact's at the other speaker's (the counts are printed).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # runnable from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "src"))

from agent_signals.config import DEFAULT_KINDS  # noqa: E402
from agent_signals_offline.rules import extract  # noqa: E402

NAIVE = re.compile(r"\b(?:I am|I'm|I have|I've|I work|I live|I love|I like|my)\b", re.I)


def replay(
    user: dict, conversations: list[dict], extractor, log: list | None = None
) -> list[set[tuple[str, int]]]:
    """Each produced signal as the set of (conversation, message index) it cites; `log` collects
    (action, cited) pairs for the error listing."""
    known: list[extract.Known] = []
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
                messages.append(extract.Message(handle, message["content"]))
        for action in extractor(messages, known):
            key = action["signal"] if action["action"] == "update" else f"s{len(produced) + 1}"
            cited = {handles[e["message"]] for e in action["evidence"]}
            produced.setdefault(key, set()).update(cited)
            if log is not None:
                log.append((action, cited))
            if action["action"] == "create" and "content" in action:
                known.append(
                    extract.Known(key, action["content"], action["tier"], action["kind"], "inferred")
                )
    return list(produced.values())


def offline(messages, known):
    return extract.extract(messages, known, DEFAULT_KINDS)


def naive(messages, _known):
    return [
        {"action": "create", "evidence": [{"message": m.handle, "quote": m.text}]}
        for m in messages
        if NAIVE.search(m.text) and not m.text.rstrip().endswith("?")
    ]


def check_evidence(users: list[dict], conversations: dict[str, dict]) -> dict[str, Counter]:
    """The role of the message each evidence index points at, for facts and for distractor facts."""
    roles: dict[str, Counter] = {"facts": Counter(), "distractor_facts": Counter()}
    for user in users:
        for field, counter in roles.items():
            for fact in user.get(field, []):
                for evidence in fact["evidence"]:
                    messages = conversations[evidence["conversation_id"]]["messages"]
                    index = evidence["message_index"]
                    counter[messages[index]["role"] if 0 <= index < len(messages) else "out of range"] += 1
    return roles


def errors(
    users: list[dict], by_user: dict[str, list[dict]], conversations: dict[str, dict], show: int
) -> None:
    """A sample of the rules' false positives (signals citing no gold message) and false negatives (gold
    facts none of whose messages is cited), to read while improving the rules."""
    false_positives, false_negatives = [], []
    for user in users:
        log: list = []
        produced = replay(user, by_user[user["user_id"]], offline, log)
        gold = [f for f in user["facts"] if f.get("expected_signal")]
        gold_evidence = {(e["conversation_id"], e["message_index"]) for f in gold for e in f["evidence"]}
        cited_all = set().union(*produced) if produced else set()
        false_positives += [
            (a["kind"], a["content"], a["evidence"][0]["quote"]) for a, c in log if not c & gold_evidence
        ]
        for fact in gold:
            where = [(e["conversation_id"], e["message_index"]) for e in fact["evidence"]]
            if not set(where) & cited_all:
                text = conversations[where[0][0]]["messages"][where[0][1]]["content"]
                false_negatives.append((fact["kind_hint"], fact["text"], text[:160]))
    pick = random.Random(0)
    print(f"\nfalse positives ({len(false_positives)}), a sample:")
    for kind, content, quote in pick.sample(false_positives, min(show, len(false_positives))):
        print(f"  [{kind}] {content!r}  <- {quote!r}")
    print(f"false negatives ({len(false_negatives)}), a sample:")
    for hint, fact, text in pick.sample(false_negatives, min(show, len(false_negatives))):
        print(f"  [{hint}] {fact!r}  in {text!r}")
    print()


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
    parser.add_argument("--show", type=int, default=0, help="print this many false positives and negatives")
    args = parser.parse_args()

    data = json.loads(args.data.read_text())
    users = data["users"] if args.all else data["users"][: args.users]
    by_user: dict[str, list[dict]] = {}
    for conv in data["conversations"]:
        by_user.setdefault(conv["user_id"], []).append(conv)
    conversations = {conv["conversation_id"]: conv for conv in data["conversations"]}
    for conv_list in by_user.values():  # sessions in order, as the pipeline would see them
        conv_list.sort(key=lambda c: (c.get("meta", {}).get("session", 0), c["conversation_id"]))

    roles = check_evidence(users, conversations)
    print(
        "evidence points at: facts "
        + ", ".join(f"{role}={n}" for role, n in sorted(roles["facts"].items()))
        + "; distractor facts "
        + ", ".join(f"{role}={n}" for role, n in sorted(roles["distractor_facts"].items()))
    )
    if args.show:
        errors(users, by_user, conversations, args.show)

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
    kinds = Counter()
    for user in users:
        log: list = []
        replay(user, by_user[user["user_id"]], offline, log)
        kinds.update(action["kind"] for action, _ in log)
    print("rules' actions by kind: " + ", ".join(f"{k}={n}" for k, n in kinds.most_common()))
    print(json.dumps({"users": len(users), **results["offline/rules"], "naive": results["naive regex"]}))


if __name__ == "__main__":
    main()
