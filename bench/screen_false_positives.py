"""False positives of the text screens on benign text: what the instruction screen (core/screening/instructions.py)
would quarantine and what the sensitive-data screen (core/screening/sensitive/, `sensitive_kinds`) would reject among
ordinary chat messages, gold facts and what the offline model writes, none of which is hostile.

Sources: msc-valid's user messages and gold facts (a model fooled into copying a message verbatim makes
the message a candidate); the offline model's candidates and summaries over msc-valid, the hand-written
workplace set (eval/workplace-signals.json) and the demo data. The sensitive screen is also run on the
development corpora (tests/data/hostile_corpus.json and hostile_dev*.json): their
benign items count as false positives, their secret, identifier and contact items as misses when nothing
is found. Pure Python: no database, no model server.

Then what a gold fact would meet as a signal: msc-valid's and the workplace set's gold facts, written in the
third person without a subject as the prompts ask ("I have two dogs" -> "Has two dogs", `as_signal`), through
every screen that refuses or holds a candidate for what it is rather than for what it states: the
instruction screen, the sensitive-data screen and the shape of a signal (core/screening/signal_shape.py); the special
categories they state are counted apart (refusing them is intended).

Then the cost of screening per msc-valid user message (best of three runs, in microseconds): the folded
readings (fold.readings), the instruction screen and the special-category screen, with the readings that
decode Morse code, text written backwards and words spelled out (issue 31) and with them switched off; and
which messages took one of them (each is worked out only when a cheap check says the text needs it).

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

from agent_signals.cli.demo import synthetic  # noqa: E402
from agent_signals.core.prompting.prompts import SummaryLine  # noqa: E402
from agent_signals.core.prompting.summary_text import summary_from_signals  # noqa: E402
from agent_signals.core.screening import fold  # noqa: E402
from agent_signals.core.screening.instructions import instruction_reason  # noqa: E402
from agent_signals.core.screening.screen import screen_text  # noqa: E402
from agent_signals.core.screening.sensitive import sensitive_kinds  # noqa: E402
from agent_signals.core.screening.signal_shape import shape_reason  # noqa: E402
from agent_signals.core.screening.special import special_categories  # noqa: E402
from agent_signals.evaluation.signal_form import as_signal  # noqa: E402
from bench.offline_rules_msc import offline, replay  # noqa: E402


def report_signals(msc: dict, workplace: dict, show: int) -> None:
    """Gold facts as signals: held or refused for what they are (instruction, sensitive data, shape), and
    the special categories they state."""
    print(f"\n{'gold facts as signals':<34} {'facts':>7} {'flagged':>7} {'special':>7} {'ms/fact':>7}")
    for name, data in (("msc-valid", msc), ("workplace", workplace)):
        facts = [as_signal(f["text"]) for u in data["users"] for f in u["facts"]]
        started = time.perf_counter()
        flagged = [
            (reason, fact)
            for fact in facts
            if (reason := instruction_reason(fact) or ", ".join(sensitive_kinds(fact)) or shape_reason(fact))
        ]
        special = sum(1 for fact in facts if special_categories(fact))
        ms = (time.perf_counter() - started) / max(len(facts), 1) * 1000
        print(f"{name:<34} {len(facts):>7} {len(flagged):>7} {special:>7} {ms:>7.2f}  "
              f"({100 * len(flagged) / max(len(facts), 1):.2f}% flagged)")  # fmt: skip
        counts = Counter(reason for reason, _fact in flagged)
        print("  " + "; ".join(f"{reason}: {n}" for reason, n in counts.most_common()))
        for reason, fact in flagged[:show]:
            print(f"  [{reason}] {fact[:160]!r}")


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
            summaries.append(summary_from_signals(lines))
    return contents, summaries


def summary_screen(text: str) -> str | None:
    """The screen a summary meets (it names "the user", as a summary should)."""
    return screen_text(text, summary=True)


def demo_set(users: int) -> tuple[list[dict], list[dict]]:
    conversations = [c.record for c in synthetic.generate(users)]
    return [{"user_id": synthetic.user_id(i), "facts": []} for i in range(users)], conversations


HOSTILE_CORPORA = (
    ROOT / "tests" / "data" / "hostile_corpus.json",
    ROOT / "tests" / "data" / "hostile_dev.json",
    ROOT / "tests" / "data" / "hostile_dev2.json",
    ROOT / "tests" / "data" / "hostile_dev3.json",
    ROOT / "tests" / "data" / "hostile_dev4.json",
)
FOUND_GROUPS = frozenset({"secret", "identifier", "contact"})  # the groups the sensitive screen must find


def sensitive_sources(
    msc: dict, workplace: dict, demo_conversations: list[dict]
) -> dict[str, tuple[list[str], bool]]:
    """Texts for the sensitive screen: name -> (texts, whether a flag is wanted). Benign sources count
    flagged texts (false positives); the hostile corpora's secret, identifier and contact items count
    the texts flagged too, so that their misses are the texts minus the flagged."""
    sources: dict[str, tuple[list[str], bool]] = {}
    for name, data in (("msc-valid", msc), ("workplace", workplace)):
        sources[f"{name} user messages"] = (_user_messages(data["conversations"]), False)
        sources[f"{name} gold facts"] = ([f["text"] for u in data["users"] for f in u["facts"]], False)
    sources["demo user messages"] = (_user_messages(demo_conversations), False)
    for path in HOSTILE_CORPORA:
        if path.exists():
            items = json.loads(path.read_text())["items"]
            label = path.stem
            sources[f"{label} benign"] = ([i["text"] for i in items if i["group"] == "benign"], False)
            wanted = [i["text"] for i in items if i["group"] in FOUND_GROUPS]
            sources[f"{label} secret/id/contact"] = (wanted, True)
    return sources


def _user_messages(conversations: list[dict]) -> list[str]:
    return [m["content"] for c in conversations for m in c["messages"] if m["role"] == "user"]


def report_sensitive(sources: dict[str, tuple[list[str], bool]], show: int) -> None:
    """Flagged counts, the time per text, and the flagged benign texts (the missed hostile ones)."""
    print(f"\nsensitive_kinds{'':<19} {'texts':>7} {'flagged':>7} {'missed':>7} {'ms/text':>7}")
    listed: dict[str, list[tuple[str, str]]] = {}
    for name, (texts, wanted) in sources.items():
        started = time.perf_counter()
        kinds = [sensitive_kinds(text) for text in texts]
        ms = (time.perf_counter() - started) / max(len(texts), 1) * 1000
        flagged = sum(bool(k) for k in kinds)
        missed = "" if not wanted else str(len(texts) - flagged)
        print(f"{name:<34} {len(texts):>7} {flagged:>7} {missed:>7} {ms:>7.2f}")
        listed[name] = [
            (",".join(k) or "missed", text) for text, k in zip(texts, kinds, strict=True) if bool(k) != wanted
        ]
    for name, texts in listed.items():
        if texts:
            print(
                f"\n{name}: " + ", ".join(f"{r} {n}" for r, n in Counter(r for r, _ in texts).most_common())
            )
            for reason, text in texts[:show]:
                print(f"  [{reason}] {text[:200]!r}")


DECODERS = ("_morse", "_backwards", "_joined")  # fold.py's readings of issue 31, each behind a cheap check


def cost(messages: list[str], show: int, repeat: int) -> None:
    """What screening costs per message, with the new readings and without them (the two interleaved, the
    best of `repeat` runs of each, in CPU time: other processes on the machine blur wall time); who took
    them."""
    judges = {"readings": fold.readings, "instruction_reason": instruction_reason,
              "special_categories": special_categories}  # fmt: skip
    kept = {name: getattr(fold, name) for name in DECODERS}
    labels = {True: "without Morse/backwards/spelled-out", False: "with them (this code)"}
    best = {(off, name): float("inf") for off in labels for name in judges}
    for _ in range(repeat):
        for off in labels:
            for name in DECODERS:
                setattr(fold, name, (lambda *_args, **_kwargs: "") if off else kept[name])
            for name, judge in judges.items():
                fold.readings.cache_clear()
                started = time.process_time()
                for text in messages:
                    judge(text)
                best[off, name] = min(best[off, name], time.process_time() - started)
    print(
        f"\ncost per msc-valid user message ({len(messages)} messages, microseconds of CPU, best of {repeat})"
    )
    print(f"{'':<38}" + "".join(f"{name:>20}" for name in judges))
    for off, label in labels.items():
        print(f"{label:<38}" + "".join(f"{best[off, n] / len(messages) * 1e6:>20.1f}" for n in judges))
    fold.readings.cache_clear()
    took = {
        name: [t for t in messages if getattr(fold.readings(t), name)]
        for name in ("morse", "backwards", "joined")
    }
    print(
        "messages that took a new reading: "
        + ", ".join(f"{name} {len(texts)}" for name, texts in took.items())
    )
    for name, texts in took.items():
        for text in texts[:show]:
            print(f"  [{name}] {text[:100]!r} -> {getattr(fold.readings(text), name)[:80]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--demo-users", type=int, default=200)
    parser.add_argument("--show", type=int, default=10, help="flagged texts listed per source")
    parser.add_argument(
        "--show-sensitive", type=int, default=200, help="texts the sensitive screen got wrong, per source"
    )
    parser.add_argument("--only-sensitive", action="store_true", help="skip the instruction screen")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each cost measurement (the best counts)"
    )
    args = parser.parse_args()

    msc = json.loads(args.data.read_text())
    workplace = json.loads((ROOT / "eval" / "workplace-signals.json").read_text())
    demo_users, demo_conversations = demo_set(args.demo_users)
    report_sensitive(sensitive_sources(msc, workplace, demo_conversations), args.show_sensitive)
    report_signals(msc, workplace, args.show)
    if args.only_sensitive:
        return
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
        sources[f"{name} offline summaries"] = (summaries, summary_screen)
    contents, summaries = offline_outputs(demo_users, demo_conversations)
    sources["demo offline candidates"] = (contents, instruction_reason)
    sources["demo offline summaries"] = (summaries, summary_screen)

    print(f"\n{'source':<34} {'texts':>7} {'flagged':>7} {'ms/text':>7}")
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
    cost(sources["msc-valid user messages"][0], args.show, args.repeat)


if __name__ == "__main__":
    main()
