"""Small builders of load-file data for tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg

from agent_signals.config import Settings
from agent_signals.store.loading.load import parse, store

# Recent, so that decay (which runs against the real clock) keeps contextual signals active.
T0 = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=5)


def conversation(
    conversation_id: str,
    user_id: str,
    turns: list[tuple[str, str]],
    *,
    extract: bool = True,
    start: datetime = T0,
    agent_id: str | None = None,
) -> dict:
    return {
        "conversation_id": conversation_id,
        "user_id": user_id,
        "channel": "web",
        **({"agent_id": agent_id} if agent_id is not None else {}),
        "extract": extract,
        "messages": [
            {"role": role, "content": content, "created_at": (start + timedelta(minutes=i)).isoformat()}
            for i, (role, content) in enumerate(turns)
        ],
    }


def load_conversations(conn: psycopg.Connection, settings: Settings, *conversations: dict):
    import json

    return store(conn, parse(json.dumps({"conversations": list(conversations)})))


def kill_when(
    args: list[str], env: dict, url: str, count_sql: str, at_least: int, timeout_s: float = 180
) -> None:
    """Run `python -m agent_signals ARGS` and SIGKILL its whole process group as soon as `count_sql` on
    `url` reaches `at_least` (it must get there while the process still runs)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_signals", *args],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            deadline = time.monotonic() + timeout_s
            while conn.execute(count_sql).fetchone()[0] < at_least:
                assert proc.poll() is None, f"`{' '.join(args)}` ended before it could be killed"
                assert time.monotonic() < deadline, f"`{' '.join(args)}` never got far enough"
                time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


UNCITED_EVIDENCE = """
    select e.quote from signals.evidence e
    join signals.signals s using (signal_id)
    left join source.messages m on m.conversation_id = e.conversation_id and m.message_id = e.message_id
    left join source.conversations c on c.conversation_id = m.conversation_id
    where m.message_id is null or m.role <> 'user' or c.user_id <> s.user_id
       or strpos(signals.clean_text(m.content), e.quote) = 0
"""


def uncited_evidence(conn: psycopg.Connection) -> list[str]:
    """Evidence quotes that are not a verbatim span of a message of the signal's own user (should be none)."""
    return [quote for (quote,) in conn.execute(UNCITED_EVIDENCE).fetchall()]
