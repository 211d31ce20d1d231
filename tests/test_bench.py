"""bench/run.py works end to end at a tiny size: its own scratch databases, the real flow in child
processes, every figure of the issue in the last line. Correctness only: the figures of a 40-user run say
nothing about speed, so none is compared with a target here (bench/run.py's table does that)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
KEYS = {
    "overhead_users_per_s", "litellm_floor_users_per_s", "overhead_floor_ratio", "cpu_ms_per_user",
    "model_cpu_ms_per_user", "own_cpu_ms_per_user", "pg_cpu_ms_per_user", "latency_efficiency",
    "latency_efficiency_c32", "llm_calls_per_user", "prompt_tokens_per_user_message", "rerun_llm_calls",
    "history_growth_ratio", "read_p50_ms", "read_p99_ms", "pk_p50_ms", "refresh_touched_ratio", "peak_rss_mb",
    "peak_rss_mb_small", "refresh_s", "model_busy", "model_busy_c32", "latency_efficiency_c128",
    "model_busy_c128", "workers_cpu_ms_per_user", "users_per_s_workers_0", "users_per_s_workers_1",
    "users_per_s_workers_2", "users_per_s_dask_2", "workers_scaling", "workers_peak_mb", "peak_total_mb",
    "worker_start_s", "worker_start_cpu_s", "workers",
}  # fmt: skip


def scratch_databases(server_url: str) -> set[str]:
    with psycopg.connect(server_url, autocommit=True) as conn:
        rows = conn.execute("select datname from pg_database where datname like 'bench_%'").fetchall()
    return {name for (name,) in rows}


@pytest.mark.bench
@pytest.mark.db
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_api")  # the bench's child processes report to the harness's Prefect server
def test_the_bench_prints_every_figure_and_cleans_up(server_url: str) -> None:
    before = scratch_databases(server_url)
    done = subprocess.run(
        [sys.executable, "bench/run.py", "--users", "40", "--read-users", "300", "--reps", "1"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": server_url},
        capture_output=True,
        text=True,
        timeout=900,  # a liveness bound, not a speed figure: about 3 minutes idle, 10 on a loaded CI machine
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert not KEYS - figures.keys()  # every figure of the issue
    assert figures["users"] == 40 and figures["read_users"] == 300 and figures["failures"] == 0
    assert figures["llm_calls_per_user"] == 1.0  # one extraction call per user with new messages
    assert figures["rerun_llm_calls"] == 0  # nothing new: no call
    # the bar of 130 is msc-valid's (bench/cost_msc.py: 83 with v5); the demo's users send ten short messages a
    # call, so extract/v5's fixed part (988 tokens) weighs about 99 a message here (136 in all, 2026-11-27)
    assert 0 < figures["prompt_tokens_per_user_message"] < 160
    assert all(
        figures[key] > 0
        for key in ("overhead_users_per_s", "latency_efficiency", "read_p50_ms", "agent_read_p50_ms")
    )
    # the model boundary's CPU is a part of the run process's; pg_cpu_ms_per_user is None on a remote server
    assert 0 < figures["model_cpu_ms_per_user"] < figures["cpu_ms_per_user"]
    assert figures["litellm_floor_users_per_s"] > 0 and figures["model_busy"] > 0
    # the CPU work is in worker processes (the machine's cores by default): their CPU and memory are counted
    assert (
        figures["workers"] >= 1 and figures["workers_cpu_ms_per_user"] > 0 and figures["workers_peak_mb"] > 0
    )
    assert all(
        figures[f"users_per_s_{name}"] > 0 for name in ("workers_0", "workers_1", "workers_2", "dask_2")
    )
    assert "overhead_users_per_s" in done.stdout.split("\n", 3)[2]  # the table before the JSON line
    assert scratch_databases(server_url) == before  # every scratch database dropped


@pytest.mark.bench
@pytest.mark.db
@pytest.mark.usefixtures("prefect_api")
def test_the_batch_bench_prices_both_modes_and_finds_the_same_signals(server_url: str) -> None:
    before = scratch_databases(server_url)
    figures = bench_figures(server_url, "bench/batch_mode.py", "--users", "6", "--reps", "1")
    assert figures["same_signals"] is True
    assert figures["direct_calls_per_user"] == figures["batch_calls_per_user"] == 1.0
    # gpt-4o-mini's batch price in litellm's map is half its direct one; the ledger keeps USD to 6 decimals
    # (ops.runs.cost_usd), which moves the ratio of a few users' costs by a few thousandths
    assert figures["cost_ratio"] == pytest.approx(0.5, abs=0.005)
    assert scratch_databases(server_url) == before


@pytest.mark.bench
@pytest.mark.db
def test_the_load_bench_reports_rows_per_second_and_peak_memory(server_url: str) -> None:
    figures = bench_figures(server_url, "bench/load_formats.py", "--messages", "2000")
    for fmt in ("ndjson", "parquet"):
        assert figures[fmt]["rows_per_s"] > 0 and figures[fmt]["peak_rss_mb"] > 0
        assert figures[fmt]["baseline_peak_rss_mb"] > 0


@pytest.mark.bench
@pytest.mark.db
def test_the_decay_bench_times_both_sizes_and_what_they_replaced(server_url: str) -> None:
    before = scratch_databases(server_url)
    figures = bench_figures(
        server_url, "bench/decay_cost.py", "--users", "50", "--touched", "5", "--reps", "1"
    )
    assert (figures["signals_1x"], figures["signals_10x"]) == (50 * 20 + 10, 500 * 20 + 10)
    for key in ("decay", "take", "checks", "decay_whole_table", "checks_everyone"):
        assert figures[f"{key}_s_1x"] > 0 and figures[f"{key}_s_10x"] > 0 and figures[f"{key}_ratio"] > 0
    assert scratch_databases(server_url) == before


@pytest.mark.bench
@pytest.mark.db
@pytest.mark.usefixtures("prefect_api")
def test_the_idle_bench_times_an_idle_run_beside_db_migrate(server_url: str) -> None:
    before = scratch_databases(server_url)
    figures = bench_figures(server_url, "bench/idle_run.py", "--users", "3", "--reps", "2")
    assert figures["users"] == 3 and figures["first_run_s"] > 0
    assert all(figures[name]["min_s"] <= figures[name]["median_s"] for name in ("idle_run", "db_migrate"))
    assert scratch_databases(server_url) == before


def bench_figures(server_url: str, program: str, *args: str) -> dict:
    """Run a bench program in a child process on the test server; its figures (the last line, JSON)."""
    done = subprocess.run(
        [sys.executable, program, *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": server_url},
        capture_output=True,
        text=True,
        timeout=600,  # a liveness bound, not a speed figure
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.bench
def test_the_screen_cost_bench_prints_a_text_s_and_a_user_s_cpu(tmp_path: Path) -> None:
    data = tmp_path / "msc.json"
    facts = [
        "I have two dogs.",
        "I work as a nurse in Leeds.",
        "My favorite color is blue.",
        "I love hiking.",
    ]
    data.write_text(json.dumps({"users": [{"user_id": "u1", "facts": [{"text": f} for f in facts]}]}))
    done = subprocess.run(
        [sys.executable, "bench/screen_cost.py", "--data", str(data), "--texts", str(tmp_path / "texts.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures) == {"screen_text", "redact", "cited_message_asks", "user_set_intent", "user_ms"}
    assert all(value > 0 for value in figures.values())
