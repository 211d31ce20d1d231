"""How much of ordinary chat the special-category screen flags: special_categories() over every gold fact,
every user message of msc-valid, and every signal the offline model writes from those messages (what the
default setting, AGENT_SIGNALS_SPECIAL_CATEGORIES=skip, keeps out). Prints counts per category and, with
--sample N, a seeded random sample of flagged texts to label by hand (precision). Pure Python.

    python bench/special_msc.py [--data ../shared/data/msc-valid.json] [--sample 100 --seed 15]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # runnable from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "src"))

from agent_signals.config import DEFAULT_KINDS  # noqa: E402
from agent_signals.core.screening.special import CATEGORIES, special_categories  # noqa: E402
from agent_signals_offline.rules import extract  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--sample", type=int, default=0, help="print this many flagged texts at random")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    user_messages = [
        [m["content"] for m in c["messages"] if m["role"] == "user"]
        for c in data["conversations"]
        if c["extract"]
    ]
    offline = [
        action["content"]
        for texts in user_messages
        for action in extract.extract(
            [extract.Message(f"m{i}", t) for i, t in enumerate(texts, 1)], [], DEFAULT_KINDS
        )
        if "content" in action
    ]
    sets = {
        "gold facts": [f["text"] for u in data["users"] for f in u["facts"]],
        "user messages": [t for texts in user_messages for t in texts],
        "offline signals": offline,
    }
    flagged_all = []
    print(f"{'texts':<16}{'count':>7}{'flagged':>9}{'share':>8}{'ms/text':>9}  by category")
    for name, texts in sets.items():
        start = time.perf_counter()
        flagged = [(name, t, cats) for t in texts if (cats := special_categories(t))]
        ms = (time.perf_counter() - start) * 1000 / max(len(texts), 1)
        by = Counter(c for _n, _t, cats in flagged for c in cats)
        share = len(flagged) / max(len(texts), 1)
        print(f"{name:<16}{len(texts):>7}{len(flagged):>9}{share:>8.2%}{ms:>9.2f}  "
              + ", ".join(f"{c} {by[c]}" for c in CATEGORIES if by[c]))  # fmt: skip
        flagged_all.extend(flagged)
    if args.sample:
        for name, text, cats in random.Random(args.seed).sample(
            flagged_all, min(args.sample, len(flagged_all))
        ):
            print(json.dumps({"set": name, "categories": cats, "text": text[:300]}, ensure_ascii=False))


if __name__ == "__main__":
    main()
