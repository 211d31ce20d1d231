"""The special-category screen on gold facts in signal form: how many of msc-valid's and the workplace set's
gold facts (third person without a subject, `as_signal`) special_categories() flags, per category; the
benign items of the development corpora (their text and their signal: none should be flagged); the median
time of one call over msc-valid's facts. With --dump, the flagged facts are written as JSON (to compare two
versions of the table: --compare the file an earlier version wrote).

    python bench/special_signals.py [--data ../shared/data/msc-valid.json] [--dump flagged.json]
        [--compare before.json] [--show 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # runnable from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "src"))

from agent_signals.core.screening.special import CATEGORIES, special_categories  # noqa: E402
from agent_signals.evaluation.signal_form import as_signal  # noqa: E402

# the development corpora only: a held-out set's items are never read one by one (docs/guarantees.md)
CORPORA = (
    "hostile_corpus",
    *sorted((p.stem for p in (ROOT / "tests" / "data").glob("hostile_dev*.json")), key=lambda s: (len(s), s)),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--dump", type=Path, help="write the flagged facts here")
    parser.add_argument("--compare", type=Path, help="list the facts flagged here and not there, and back")
    parser.add_argument("--show", type=int, default=30)
    args = parser.parse_args()

    special_categories("warm up")  # the medicine dictionary loads on first use
    flagged: dict[str, dict[str, list[str]]] = {}
    sets = {
        "msc-valid": json.loads(args.data.read_text()),
        "workplace": json.loads((ROOT / "eval" / "workplace-signals.json").read_text()),
    }
    print(f"{'gold facts as signals':<24}{'facts':>7}{'flagged':>9}{'share':>8}  by category")
    for name, data in sets.items():
        facts = [as_signal(f["text"]) for u in data["users"] for f in u["facts"]]
        times, found = [], {}
        for fact in facts:
            started = time.perf_counter()
            categories = special_categories(fact)
            times.append(time.perf_counter() - started)
            if categories:
                found[fact] = categories
        flagged[name] = found
        by = Counter(c for cats in found.values() for c in cats)
        print(f"{name:<24}{len(facts):>7}{len(found):>9}{len(found) / len(facts):>8.2%}  "
              + ", ".join(f"{c} {by[c]}" for c in CATEGORIES if by[c]))  # fmt: skip
        print(f"{'':<24}median {statistics.median(times) * 1e6:.0f} us/call, "
              f"mean {statistics.mean(times) * 1e6:.0f} us/call")  # fmt: skip

    print(f"\n{'development corpora':<24}{'benign':>7}{'flagged':>9}{'special':>9}{'found':>7}")
    for stem in CORPORA:
        path = ROOT / "tests" / "data" / f"{stem}.json"
        items = json.loads(path.read_text())["items"]
        benign = [
            (i["id"], field, i[field])
            for i in items
            if i["group"] == "benign"
            for field in ("text", "signal")
            if i.get(field)
        ]
        wrong = [
            (iid, field, text, cats) for iid, field, text in benign if (cats := special_categories(text))
        ]
        special = [i for i in items if i["group"] == "special_category"]
        found_special = sum(
            1 for i in special if any(special_categories(i[f]) for f in ("text", "signal") if i.get(f))
        )
        print(f"{stem:<24}{len(benign):>7}{len(wrong):>9}{len(special):>9}{found_special:>7}")
        for iid, field, text, cats in wrong:
            print(f"  {iid} {field} {cats}: {text[:150]!r}")

    if args.dump:
        args.dump.write_text(json.dumps(flagged, ensure_ascii=False, indent=1))
    if args.compare:
        before = json.loads(args.compare.read_text())
        for name, found in flagged.items():
            old = before.get(name, {})
            added = [(f, c) for f, c in found.items() if f not in old or old[f] != c]
            gone = [(f, c) for f, c in old.items() if f not in found]
            print(f"\n{name}: {len(added)} flagged now (or differently), {len(gone)} no longer flagged")
            for fact, cats in added[: args.show]:
                print(f"  + {cats} {fact[:160]!r}")
            for fact, cats in gone[: args.show]:
                print(f"  - {cats} {fact[:160]!r}")


if __name__ == "__main__":
    main()
