"""What a scheduled run with nothing to do costs: `agent-signals run` as a new process, timed end to end, after
a first run has processed every demo user (so the database is not empty, only caught up), against the
cheapest command that also opens the database, `agent-signals db migrate` (nothing to apply), measured in
the same run. Prints median, min and max of --reps runs of each, then one JSON line.

    python bench/idle_run.py [--users 200] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench.scratch import database  # noqa: E402

CLI = [sys.executable, "-m", "agent_signals"]


def timed(args: list[str], env: dict) -> float:
    started = time.monotonic()
    subprocess.run([*CLI, *args], env=env, cwd=ROOT, check=True, capture_output=True)
    return time.monotonic() - started


def figures(seconds: list[float]) -> dict:
    return {"median_s": round(statistics.median(seconds), 3), "min_s": round(min(seconds), 3),
            "max_s": round(max(seconds), 3)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=200, help="demo users processed before the idle runs")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with database("bench_idle") as url, tempfile.TemporaryDirectory() as prefect_home:
        env = {**os.environ, "DATABASE_URL": url, "PREFECT_HOME": prefect_home,
               "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
        subprocess.run([*CLI, "demo", "seed", "--users", str(args.users)], env=env, cwd=ROOT, check=True,
                       capture_output=True)  # fmt: skip
        first = timed(["run"], env)  # processes every user: the full flow
        idle = [timed(["run"], env) for _ in range(args.reps)]
        migrate = [timed(["db", "migrate"], env) for _ in range(args.reps)]
    result = {"users": args.users, "first_run_s": round(first, 2), "idle_run": figures(idle),
              "db_migrate": figures(migrate),
              "idle_over_migrate": round(statistics.median(idle) / statistics.median(migrate), 2)}  # fmt: skip
    print(f"first run ({args.users} users, full flow): {first:.1f} s")
    for name in ("idle_run", "db_migrate"):
        f = result[name]
        print(f"{name:<10} median {f['median_s']:.2f} s  min {f['min_s']:.2f} s  max {f['max_s']:.2f} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
