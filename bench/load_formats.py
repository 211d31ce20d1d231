"""`agent-signals load` of the flat formats at scale: writes a deterministic file of --messages messages (10 per
conversation, 5 conversations per user, text lengths of chat: 8 to 600 characters, median about 80, mean about 155) as
NDJSON and as Parquet in a temporary directory, loads each into its own scratch database in a child process
and reports rows per second and the child's peak RSS (ru_maxrss), against a baseline: the same child
importing the same modules and loading a 1,000-message file of the same format. Memory flat in the file's
size means peak RSS close to the baseline's. Prints a table, then one JSON line.

    python bench/load_formats.py [--messages 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

BASELINE_MESSAGES = 1_000
PER_CONVERSATION = 10
CONVERSATIONS_PER_USER = 5
WORDS = [
    "the",
    "a",
    "I",
    "we",
    "you",
    "it",
    "is",
    "was",
    "to",
    "of",
    "and",
    "in",
    "on",
    "for",
    "with",
    "at",
    "my",
    "our",
    "your",
    "this",
    "that",
    "have",
    "had",
    "not",
    "but",
    "so",
    "just",
    "pipeline",
    "data",
    "team",
    "meeting",
    "tomorrow",
    "deploy",
    "service",
    "query",
    "table",
    "postgres",
    "python",
    "weekend",
    "trip",
    "hiking",
    "coffee",
    "kids",
    "school",
    "project",
    "deadline",
    "review",
    "budget",
    "report",
    "model",
    "train",
    "flight",
    "berlin",
    "london",
    "tokyo",
    "really",
    "think",
    "maybe",
    "probably",
    "great",
    "thanks",
    "sure",
    "okay",
    "yes",
    "no",
    "please",
    "could",
    "would",
    "should",
]


def frame(messages: int, prefix: str):
    """The file's rows as a polars frame: deterministic, ids prefixed so files never share a message."""
    import polars as pl

    snippets = []  # 4,096 texts of chat-like lengths, picked by a multiplicative hash of the row
    for i in range(4096):
        length = 8 + int(592 * ((i * 2654435761 % 4093) / 4093) ** 3)  # skewed to short, as chat is
        words, n, k = [], 0, i
        while n < length:
            k = (k * 1103515245 + 12345) % 2**31
            words.append(WORDS[k % len(WORDS)])
            n += len(words[-1]) + 1
        snippets.append(" ".join(words)[:length])
    row = pl.int_range(0, messages, dtype=pl.Int64, eager=True).alias("row").to_frame()
    conv = pl.col("row") // PER_CONVERSATION
    return row.select(
        conversation_id=pl.format(f"{prefix}c{{}}", conv),
        user_id=pl.format(f"{prefix}u{{}}", conv // CONVERSATIONS_PER_USER),
        channel=pl.when(conv % 3 == 0).then(None).otherwise(pl.lit("web")),
        extract=conv % 4 != 0,
        message_id=pl.format("m{}", pl.col("row") % PER_CONVERSATION),
        role=pl.when(pl.col("row") % 2 == 0).then(pl.lit("user")).otherwise(pl.lit("assistant")),
        content=pl.lit(pl.Series(snippets)).gather(pl.col("row") * 2654435761 % 4096),
        created_at=pl.datetime(2026, 1, 1, time_zone="UTC") + pl.duration(minutes=pl.col("row")),
    )


def write(directory: Path, fmt: str, messages: int, prefix: str) -> Path:
    import polars as pl

    path = directory / f"{prefix}.{fmt}"
    data = frame(messages, prefix)
    if fmt == "parquet":
        data.write_parquet(path)
    else:
        data.with_columns(pl.col("created_at").dt.to_string("%Y-%m-%dT%H:%M:%S%:z")).write_ndjson(path)
    return path


def child(fmt: str, path: Path) -> None:
    """One load in this process (DATABASE_URL set by the parent); prints rows, seconds and peak RSS."""
    import agent_signals.cli  # noqa: F401  # what the command imports
    from agent_signals.config import Settings
    from agent_signals.store import database
    from agent_signals.store.loading import load_rows

    settings = Settings()
    started = time.monotonic()
    with database.session(settings) as conn:
        result = load_rows.store_file(conn, path, fmt)  # type: ignore[arg-type]
    seconds = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"rows": result.messages_new, "seconds": seconds, "peak_rss_mb": peak_mb}))


def written(directory: str, fmt: str, messages: int, prefix: str) -> Path:
    """A file written by a child process: Linux keeps a process's peak RSS across fork and exec, so this
    process stays small for the loads' children to measure only themselves."""
    done = subprocess.run(
        [sys.executable, __file__, "--messages", str(messages), "--write", directory, fmt, prefix],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(done.stdout.strip().splitlines()[-1])


def run_child(fmt: str, path: Path, url: str) -> dict:
    env = {**os.environ, "DATABASE_URL": url,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
    done = subprocess.run(
        [sys.executable, __file__, "--child", fmt, str(path)],
        env=env, cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the {fmt} load failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--child", nargs=2, metavar=("FORMAT", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=3, metavar=("DIR", "FORMAT", "PREFIX"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    if args.write:
        print(write(Path(args.write[0]), args.write[1], args.messages, args.write[2]))
        return
    from bench.scratch import database

    result: dict = {"messages": args.messages, "baseline_messages": BASELINE_MESSAGES}
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("ndjson", "parquet"):
            big = written(tmp, fmt, args.messages, f"{fmt[0]}")
            small = written(tmp, fmt, BASELINE_MESSAGES, f"{fmt[0]}b")
            with database("bench_load") as url:
                base = run_child(fmt, small, url)
                load = run_child(fmt, big, url)
            assert load["rows"] == args.messages and base["rows"] == BASELINE_MESSAGES, (load, base)
            result[fmt] = {
                "file_mb": round(big.stat().st_size / 2**20, 1),
                "seconds": round(load["seconds"], 2),
                "rows_per_s": round(args.messages / load["seconds"]),
                "peak_rss_mb": round(load["peak_rss_mb"]),
                "baseline_peak_rss_mb": round(base["peak_rss_mb"]),
            }
    print(
        f"{'format':<8} {'file MB':>8} {'seconds':>8} {'rows/s':>9} {'peak RSS MB':>12} {'baseline MB':>12}"
    )
    for fmt in ("ndjson", "parquet"):
        f = result[fmt]
        print(f"{fmt:<8} {f['file_mb']:>8} {f['seconds']:>8} {f['rows_per_s']:>9,} {f['peak_rss_mb']:>12} "
              f"{f['baseline_peak_rss_mb']:>12}")  # fmt: skip
    print(json.dumps(result))


if __name__ == "__main__":
    main()
