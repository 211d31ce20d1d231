"""Direct against provider batch mode, for one scheduled run over the seeded demo data: model calls and cost
per user in each mode, and the wall time from a batch's submission to its answers applied, against the local
server of OpenAI's chat, files and batches endpoints (tests/batch_server.py) answering with the offline
model. The model is named `openai/<--model>` so that litellm prices its tokens as the real model's, direct
and batch (its batch price where its map has one, else AGENT_SIGNALS_BATCH_DISCOUNT).

Each repetition seeds two scratch databases alike; one is run directly, the other in batch mode: a run that
sends, the server finishing the batches, a run that applies. Prints medians of --reps, then one JSON line.

    python bench/batch_mode.py [--users 200] [--reps 3] [--model gpt-4o-mini]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agent_signals.adapters.runtime import apply_defaults  # noqa: E402
from agent_signals.config import Settings  # noqa: E402

apply_defaults(Settings())

import psycopg  # noqa: E402

from agent_signals.cli.demo import seeding  # noqa: E402
from agent_signals.flows.extract import extract_signals  # noqa: E402
from bench.scratch import database  # noqa: E402
from tests.batch_server import offline, serving  # noqa: E402

SIGNALS = "select user_id, content, tier, kind, status from signals.signals order by 1, 2"


def seeded(url: str, users: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        seeding.seed(conn, users=users, messages_per_user=6)


def signals(url: str) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(SIGNALS).fetchall()


def one(users: int, model: str) -> dict:
    with (
        serving(offline) as server,
        database("bench_direct") as direct_url,
        database("bench_batch") as batch_url,
    ):
        for url in (direct_url, batch_url):
            seeded(url, users)

        def settings(url: str, **values: object) -> Settings:
            return Settings(database_url=url, model=f"openai/{model}", api_base=server.url, api_key="sk-bench",
                            **values)  # fmt: skip

        started = time.monotonic()
        direct = asyncio.run(extract_signals(kind="scheduled", settings=settings(direct_url)))
        direct_s = time.monotonic() - started

        started = time.monotonic()
        sent = asyncio.run(
            extract_signals(kind="scheduled", settings=settings(batch_url, batch_mode="provider"))
        )
        sent_s = time.monotonic() - started
        for batch_id in sorted(server.batches):
            server.finish(batch_id)
        started_apply = time.monotonic()
        applied = asyncio.run(
            extract_signals(kind="scheduled", settings=settings(batch_url, batch_mode="provider"))
        )
        submit_to_applied_s = time.monotonic() - started
        apply_s = time.monotonic() - started_apply
        same = signals(direct_url) == signals(batch_url)
    calls_batch = applied["llm_calls"] + sent["llm_calls"]
    cost_batch = applied["cost_usd"] + sent["cost_usd"]
    return {
        "direct_calls_per_user": direct["llm_calls"] / users,
        "batch_calls_per_user": calls_batch / users,
        "direct_cost_per_user_usd": direct["cost_usd"] / users,
        "batch_cost_per_user_usd": cost_batch / users,
        "cost_ratio": cost_batch / direct["cost_usd"] if direct["cost_usd"] else None,
        "direct_run_s": direct_s,
        "batch_send_run_s": sent_s,
        "batch_apply_run_s": apply_s,
        "submit_to_applied_s": submit_to_applied_s,
        "batches": len(server.batches),
        "same_signals": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--model", default="gpt-4o-mini", help="priced as this OpenAI model (litellm's map)")
    args = parser.parse_args()
    with serving(offline), database("bench_warm") as url:  # Prefect's temporary server starts here
        asyncio.run(extract_signals(kind="scheduled", settings=Settings(database_url=url)))
    reps = [one(args.users, args.model) for _ in range(args.reps)]
    result: dict = {"users": args.users, "model": f"openai/{args.model}", "reps": args.reps}
    for key in reps[0]:
        values = [r[key] for r in reps]
        if key == "same_signals":
            result[key] = all(values)
        elif all(isinstance(v, (int, float)) for v in values):
            result[key] = round(statistics.median(values), 8 if "usd" in key else 3)
        else:
            result[key] = values[0]
    print(f"{args.users} demo users, priced as {result['model']}, median of {args.reps}:")
    print(
        f"  calls per user   direct {result['direct_calls_per_user']:.2f}   batch {result['batch_calls_per_user']:.2f}"
    )
    print(f"  cost per user    direct ${result['direct_cost_per_user_usd']:.8f}   "
          f"batch ${result['batch_cost_per_user_usd']:.8f}   ratio {result['cost_ratio']}")  # fmt: skip
    print(f"  wall time        direct run {result['direct_run_s']:.2f} s   batch: send {result['batch_send_run_s']:.2f} s, "
          f"submit to applied {result['submit_to_applied_s']:.2f} s (server finishing at once)")  # fmt: skip
    print(f"  same final signals: {result['same_signals']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
