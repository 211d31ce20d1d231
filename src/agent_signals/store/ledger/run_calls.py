"""A run's model calls as they come back (ops.run_calls): what a part of the run counted since its last
write (RunStats.unrecorded, keyed `purpose.mode.figure`) added to the run's rows, so that its row in
ops.runs counts every answered call however the run ends (update_run.sql and abandon_dead_runs.sql read
them)."""

from __future__ import annotations

from collections import Counter

import psycopg

from agent_signals.store.sqlfiles import query

FIGURES = ("calls", "prompt_tokens", "cached_prompt_tokens", "completion_tokens", "cost_usd")


def key(purpose: str, mode: str, figure: str) -> str:
    return f"{purpose}.{mode}.{figure}"


async def record(conn: psycopg.AsyncConnection, run_id, unrecorded: Counter[str]) -> None:
    """Add the calls counted in `unrecorded` to the run's rows, then take them out of it (what was counted
    while the write was in flight stays for the next one). Raises what the database raises: nothing is
    taken out then."""
    written = Counter(unrecorded)
    pairs = sorted({tuple(k.split(".")[:2]) for k in written})
    if not pairs:
        return
    await conn.execute(
        query("run_calls/record_calls"),
        {
            "run_id": run_id,
            "purposes": [purpose for purpose, _mode in pairs],
            "modes": [mode for _purpose, mode in pairs],
            **{
                figure: [
                    (float if figure == "cost_usd" else int)(written[key(p, m, figure)]) for p, m in pairs
                ]
                for figure in FIGURES
            },
        },
    )
    for name, value in written.items():
        left = unrecorded[name] - value
        if abs(left) < 1e-12:
            del unrecorded[name]
        else:
            unrecorded[name] = left
