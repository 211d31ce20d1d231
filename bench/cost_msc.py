"""Cost against the bar: one run over all sessions of the first N users of msc-valid, then a second run.

The bar (a popular open-source memory library, fed the same users one session at a time): 4 model calls
per user and about 1,300 prompt tokens per user message. Ours must stay at or under 1.1 calls per user and
130 prompt tokens per user message, and make no call for a user with nothing new.

    python bench/cost_msc.py [--data ../shared/data/msc-valid.json] [--users 50] [--dates recent|original|both]

Runs in a scratch database on the configured server (embedded unless DATABASE_URL is set), dropped after.
`recent` moves the sessions in time so that the last one ended yesterday (gaps kept, see `_recent`): a live
product fed session by session. `original` keeps the dataset's 2021 dates: a backfill of old history, where
decay archives most context in the same run; it must cost no more calls. `both` (the default) runs each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `bench` and `flows` importable when run as a script
    sys.path.insert(0, str(ROOT))


def _recent(conversations: list[dict]) -> list[dict]:
    """The sessions moved in time so that the last one ended yesterday, keeping every gap: the bar is about
    a live product fed session by session (the original 2021 dates are measured too: old history)."""
    from datetime import UTC, datetime, timedelta

    stamps = [datetime.fromisoformat(m["created_at"]) for c in conversations for m in c["messages"]]
    shift = datetime.now(UTC) - timedelta(days=1) - max(stamps)
    return [
        {**c, "messages": [
            {**m, "created_at": (datetime.fromisoformat(m["created_at"]) + shift).isoformat()} for m in c["messages"]
        ]}
        for c in conversations
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--dates", choices=("recent", "original", "both"), default="both")
    args = parser.parse_args()

    from agent_signals.adapters.runtime import apply_defaults
    from agent_signals.config import Settings

    apply_defaults(Settings())
    raw = json.loads(args.data.read_text())
    users = [u["user_id"] for u in raw["users"][: args.users]]
    conversations = [c for c in raw["conversations"] if c["user_id"] in set(users)]
    modes = ("recent", "original") if args.dates == "both" else (args.dates,)
    results = [measure(len(users), _recent(conversations) if mode == "recent" else conversations, mode)
               for mode in modes]  # fmt: skip
    for result in results:
        report(result)
    sys.exit(0)


def measure(users: int, conversations: list[dict], dates: str) -> dict:
    """One run over every session in a scratch database, then an immediate second run."""
    import psycopg

    from agent_signals.config import Settings
    from agent_signals.store.loading.load import ConversationsFile, store
    from bench import scratch

    data = ConversationsFile.model_validate({"conversations": conversations})
    user_messages = sum(
        1 for c in conversations if c["extract"] for m in c["messages"] if m["role"] == "user"
    )
    with scratch.database("bench_cost") as url:
        settings = Settings(database_url=url)
        with psycopg.connect(url, autocommit=True) as conn:
            store(conn, data)
        from agent_signals.flows.extract import extract_signals

        started = time.monotonic()
        first = asyncio.run(extract_signals(kind="manual", settings=settings))
        seconds = time.monotonic() - started
        second = asyncio.run(extract_signals(kind="manual", settings=settings))
    return {
        "dates": dates,
        "users": users,
        "sessions": len(conversations),
        "user_messages": user_messages,
        "llm_calls_per_user": round(first["llm_calls"] / users, 3),
        "llm_calls_by_purpose": first["llm_calls_by_purpose"],
        "extract_calls_per_user": round(first["llm_calls_by_purpose"].get("extract", 0) / users, 3),
        "prompt_tokens_per_user_message": round(first["prompt_tokens"] / user_messages, 1),
        "completion_tokens_per_user": round(first["completion_tokens"] / users, 1),
        "rerun_llm_calls": second["llm_calls"],
        "signals_actions": first["actions"],
        "run_seconds": round(seconds, 2),
    }


def report(result: dict) -> None:
    print(f"{'dates':<34}{result['dates']}")
    print(f"{'users':<34}{result['users']}")
    print(f"{'sessions (conversations)':<34}{result['sessions']}")
    print(f"{'user messages':<34}{result['user_messages']}")
    print(f"{'model calls per user':<34}{result['llm_calls_per_user']}   (bar: 4, target <= 1.1)")
    purposes = ", ".join(f"{k} {v}" for k, v in result["llm_calls_by_purpose"].items())
    print(f"{'  of which':<34}{purposes}")
    print(
        f"{'prompt tokens per user message':<34}{result['prompt_tokens_per_user_message']}   (bar: ~1300, target <= 130)"
    )
    print(f"{'model calls on an immediate rerun':<34}{result['rerun_llm_calls']}   (target 0)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
