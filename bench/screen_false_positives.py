"""False positives of the instruction screen (core/instructions.py) on benign text: what it would quarantine
among ordinary chat messages, gold facts and what the offline model writes, none of which is hostile.

Sources: msc-valid's user messages and gold facts (a model fooled into copying a message verbatim makes
the message a candidate); the offline model's candidates and summaries over msc-valid, the hand-written
workplace set (eval/workplace-signals.json) and the demo data. Pure Python: no database, no model server.

    python bench/screen_false_positives.py [--data ../shared/data/msc-valid.json] [--show 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):  # runnable from a checkout without the editable install
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from agent_signals.core.instructions import instruction_reason  # noqa: E402
from agent_signals.core.prompts import SummaryLine  # noqa: E402
from agent_signals.core.screen import screen_text  # noqa: E402
from agent_signals.core.summary_text import summary_from_signals as summarize  # noqa: E402
from agent_signals.store import demo_data  # noqa: E402
from bench.offline_rules_msc import offline, replay  # noqa: E402


def offline_outputs(users: list[dict], conversations: list[dict]) -> tuple[list[str], list[str]]:
    """The offline model's candidate contents and each user's summary of them."""
    by_user: dict[str, list[dict]] = {}
    for conv in conversations:
        by_user.setdefault(conv["user_id"], []).append(conv)
    contents: list[str] = []
    summaries: list[str] = []
    for user in users:
        log: list = []
        replay(user, by_user.get(user["user_id"], []), offline, log)
        mine = [a for a, _cited in log if a.get("content")]
        contents += [a["content"] for a in mine]
        if mine:
            lines = [SummaryLine(a["tier"], a["kind"], a["content"]) for a in mine]
            summaries.append(summarize(lines))
    return contents, summaries


def demo_set(users: int) -> tuple[list[dict], list[dict]]:
    conversations = [c.record for c in demo_data.generate(users)]
    return [{"user_id": demo_data.user_id(i), "facts": []} for i in range(users)], conversations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--demo-users", type=int, default=200)
    parser.add_argument("--show", type=int, default=10, help="flagged texts listed per source")
    args = parser.parse_args()

    msc = json.loads(args.data.read_text())
    workplace = json.loads((ROOT / "eval" / "workplace-signals.json").read_text())
    sources: dict[str, tuple[list[str], object]] = {}
    for name, data in (("msc-valid", msc), ("workplace", workplace)):
        messages = [m["content"] for c in data["conversations"] for m in c["messages"] if m["role"] == "user"]
        sources[f"{name} user messages"] = (messages, instruction_reason)
        sources[f"{name} gold facts"] = (
            [f["text"] for u in data["users"] for f in u["facts"]],
            instruction_reason,
        )
        contents, summaries = offline_outputs(data["users"], data["conversations"])
        sources[f"{name} offline candidates"] = (contents, instruction_reason)
        sources[f"{name} offline summaries"] = (summaries, screen_text)
    contents, summaries = offline_outputs(*demo_set(args.demo_users))
    sources["demo offline candidates"] = (contents, instruction_reason)
    sources["demo offline summaries"] = (summaries, screen_text)

    print(f"{'source':<34} {'texts':>7} {'flagged':>7} {'ms/text':>7}")
    flagged_all: dict[str, list[tuple[str, str]]] = {}
    for name, (texts, judge) in sources.items():
        started = time.perf_counter()
        flagged = [(reason, text) for text in texts if (reason := judge(text))]
        ms = (time.perf_counter() - started) / max(len(texts), 1) * 1000
        flagged_all[name] = flagged
        print(f"{name:<34} {len(texts):>7} {len(flagged):>7} {ms:>7.2f}")
    for name, flagged in flagged_all.items():
        if flagged:
            print(
                f"\n{name}: " + ", ".join(f"{r} {n}" for r, n in Counter(r for r, _ in flagged).most_common())
            )
            for reason, text in flagged[: args.show]:
                print(f"  [{reason}] {text[:160]!r}")


if __name__ == "__main__":
    main()
