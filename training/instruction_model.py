"""Train the learned instruction screen (src/agent_signals/core/screening/learned.py) and write its model
file, printing how it does on data it was not trained on.

Training data, all of it development data (the held-out set, tests/data/hostile_heldout.json, is never read):
- statements to hold: the English statement (`signal`) of every instruction and disguised-instruction item
  of the development corpora (tests/hostile.py's CORPORA["dev"]);
- statements to keep: the development corpora's benign controls; 600 work facts written blind for it
  (tests/data/benign_signals_dev.json: duties with the verbs instructions use, "Approves the team's expense
  reports"); the gold facts of half of msc-valid's users (chosen by a hash of the user id; kept as signals in
  training/data/msc_valid_gold_signals.json, written by --from-msc) and of the
  workplace set, as signals (`as_signal`); and every signal a capable model wrote in the recorded answers
  (eval/recorded/).

Figures printed: how many of each development file's instruction statements and controls are held when that
file is left out of training (leave-one-file-out), at learned.HOLD_FROM, and how many more by two weak signs
together (a score from learned.UNSURE_FROM and a message that speaks to the agent, core/screening/risk.py); of the other half
of msc-valid's gold facts, and of 300 work facts written blind apart from the training ones
(tests/data/benign_signals_heldout.json, never trained on).

    python training/instruction_model.py [--from-msc ../shared/data/msc-valid.json] [--check]

--check trains once and compares with the committed model file instead of writing it (a test runs it)."""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):  # runnable from a checkout without the editable install
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from agent_signals.core.screening import learned  # noqa: E402
from agent_signals.core.screening.signal_shape import addresses_agent  # noqa: E402
from agent_signals.evaluation.signal_form import as_signal  # noqa: E402
from tests.hostile import CORPORA, DATA  # noqa: E402

HOLD_GROUPS = ("instruction", "obfuscation")  # the groups whose statements are rules for acting
C = 4.0  # inverse regularisation: chosen by leave-one-file-out on the development files
TRAINING_MSC_HALF = 0  # msc-valid users whose id hashes to this (mod 2) are trained on; the rest measure


def _corpus_file(name: str) -> tuple[list[str], list[int], list[str]]:
    """A development file's statements, their labels (1: a rule for acting) and the messages they state."""
    texts, labels, messages = [], [], []
    for item in json.loads((DATA / name).read_text(encoding="utf-8"))["items"]:
        if item.get("signal") and (item["group"] in HOLD_GROUPS or item["group"] == "benign"):
            texts.append(item["signal"])
            labels.append(int(item["group"] in HOLD_GROUPS))
            messages.append(item["text"])
    return texts, labels, messages


MSC_SIGNALS = Path(__file__).with_name("data") / "msc_valid_gold_signals.json"


def _msc_facts() -> tuple[list[str], list[str]]:
    """msc-valid's gold facts as signals (MSC_SIGNALS): (the training half, the measuring half)."""
    users = json.loads(MSC_SIGNALS.read_text(encoding="utf-8"))["users"]
    halves: tuple[list[str], list[str]] = ([], [])
    for user_id, signals in users.items():
        halves[0 if zlib.crc32(user_id.encode()) % 2 == TRAINING_MSC_HALF else 1].extend(signals)
    return halves


def write_msc_signals(data: Path) -> None:
    """MSC_SIGNALS from msc-valid (../shared/data/msc-valid.json, not in this repository): each user's gold
    facts as the signals the prompts ask for (`as_signal`), so that training needs no file from outside."""
    users = json.loads(data.read_text(encoding="utf-8"))["users"]
    signals = {user["user_id"]: [as_signal(fact["text"]) for fact in user["facts"]] for user in users}
    body = {"description": f"gold facts of {data.name} as signals (training/instruction_model.py --from-msc)",
            "users": signals}  # fmt: skip
    MSC_SIGNALS.parent.mkdir(exist_ok=True)
    MSC_SIGNALS.write_text(json.dumps(body, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


def benign_signals(name: str) -> list[str]:
    """A file of work facts written blind as signals (tests/data/benign_signals_*.json)."""
    return [
        s["text"]
        for s in json.loads((DATA / f"benign_signals_{name}.json").read_text(encoding="utf-8"))["signals"]
    ]


def _kept_signals() -> list[str]:
    workplace = json.loads((ROOT / "eval" / "workplace-signals.json").read_text(encoding="utf-8"))
    kept = benign_signals("dev") + [
        as_signal(fact["text"]) for user in workplace["users"] for fact in user["facts"]
    ]
    for answer in sorted((ROOT / "eval" / "recorded").glob("*/*/*.answer.json")):
        try:
            actions = json.loads(answer.read_text(encoding="utf-8")).get("actions") or []
        except json.JSONDecodeError:
            continue  # a recorded answer that is not JSON is kept as it came (the eval's malformed case)
        kept.extend(a["content"] for a in actions if isinstance(a, dict) and a.get("content"))
    return kept


def fit(texts: list[str], labels: list[int]) -> dict[str, np.ndarray]:
    """The model's arrays (learned._model reads them)."""
    arrays: dict[str, np.ndarray] = {}
    blocks = []
    for n, vectorizer in enumerate(learned.vectorizers()):
        counts = vectorizer.transform(texts)
        tfidf = TfidfTransformer(sublinear_tf=True)
        blocks.append(tfidf.fit_transform(counts))
        seen = np.flatnonzero(np.asarray((counts > 0).sum(axis=0)).ravel())
        arrays[f"idf_index_{n}"] = seen.astype(np.int32)
        arrays[f"idf_value_{n}"] = tfidf.idf_[seen]
        arrays[f"idf_default_{n}"] = np.array(np.log((1 + len(texts)) / 1) + 1)
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=5000)
    model.fit(sparse.hstack(blocks).tocsr(), labels)
    coef = model.coef_.ravel()
    for n in range(len(blocks)):
        part = coef[n * learned.N_FEATURES : (n + 1) * learned.N_FEATURES]
        index = np.flatnonzero(part)
        arrays[f"coef_index_{n}"] = index.astype(np.int32)
        arrays[f"coef_value_{n}"] = part[index]
    arrays["intercept"] = np.array(model.intercept_[0])
    return arrays


def _same(trained: np.ndarray, committed: np.ndarray | None) -> bool:
    """Equal, up to the last digits an optimiser's arithmetic may differ in on another machine."""
    if committed is None or trained.shape != committed.shape:
        return False
    return bool(np.allclose(trained, committed, rtol=1e-3, atol=1e-4))


def _scores(arrays: dict[str, np.ndarray], texts: list[str]) -> np.ndarray:
    path = Path("/tmp") / f"instruction_model_{zlib.crc32(repr(sorted(arrays)).encode())}.npz"
    np.savez_compressed(path, **arrays)
    saved, learned.MODEL_FILE = learned.MODEL_FILE, path
    learned._model.cache_clear()
    learned.instruction_score.cache_clear()
    try:
        return np.array([learned.instruction_score(t) for t in texts])
    finally:
        learned.MODEL_FILE = saved
        learned._model.cache_clear()
        learned.instruction_score.cache_clear()
        path.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-msc", type=Path, metavar="MSC_VALID_JSON",
                        help=f"first write {MSC_SIGNALS.relative_to(ROOT)} from msc-valid")  # fmt: skip
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed model, write nothing"
    )
    args = parser.parse_args()
    files = {name: _corpus_file(name) for name in CORPORA["dev"]}
    if args.from_msc:
        write_msc_signals(args.from_msc)
    msc_train, msc_measure = _msc_facts()
    kept = _kept_signals() + msc_train

    def training(leave_out: str | None) -> tuple[list[str], list[int]]:
        texts, labels = list(kept), [0] * len(kept)
        for name, (t, y, _m) in files.items():
            if name != leave_out:
                texts += t
                labels += y
        return texts, labels

    if not args.check:  # the figures: each development file left out of training in turn
        print(f"{'left out':<20} {'rules':>5} {'held':>5} {'+ its message':>13} {'controls':>8} {'held':>5} "
              f"{'+ its message':>13}")  # fmt: skip
        for name, (texts, labels, messages) in files.items():
            scores = _scores(fit(*training(name)), texts)
            held = scores >= learned.HOLD_FROM
            both = [  # two weak signs: unsure, and the message speaks to the agent (risk.py)
                learned.UNSURE_FROM <= score < learned.HOLD_FROM and addresses_agent(message)
                for score, message in zip(scores, messages, strict=True)
            ]
            rules = [y == 1 for y in labels]
            controls = [y == 0 for y in labels]

            def count(flags: list[bool] | np.ndarray, among: list[bool]) -> int:
                return sum(f and a for f, a in zip(flags, among, strict=True))

            print(f"{name:<20} {sum(rules):>5} {count(held, rules):>5} {count(both, rules):>13} "
                  f"{sum(controls):>8} {count(held, controls):>5} {count(both, controls):>13}")  # fmt: skip
    arrays = fit(*training(None))
    for what, texts in (
        ("msc-valid gold facts, the half not trained on", msc_measure),
        ("work facts written blind, not trained on", benign_signals("heldout")),
    ):
        held = _scores(arrays, texts) >= learned.HOLD_FROM
        print(f"{what}: {int(held.sum())} of {len(texts)} held ({held.mean():.2%})")  # fmt: skip
    if args.check:
        committed = dict(np.load(learned.MODEL_FILE))
        differ = [k for k in arrays if not _same(arrays[k], committed.get(k))]
        print(
            "the committed model is what this trains"
            if not differ
            else f"the committed model differs: {differ}"
        )
        return 1 if differ else 0
    np.savez_compressed(learned.MODEL_FILE, **arrays)
    print(f"wrote {learned.MODEL_FILE.relative_to(ROOT)} ({learned.MODEL_FILE.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
