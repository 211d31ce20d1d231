"""Operations: deployments as declared, backfills (equal to a scheduled run, resumable, dry run), the
budget, rate limits, no overlap between concurrent runs, and the run report artifact."""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import psycopg
import pytest
import yaml

from agent_signals.adapters.pacing import RateLimiter
from agent_signals.config import Settings
from agent_signals.flows.backfill import backfill_signals
from agent_signals.flows.extract import extract_signals
from tests.builders import T0, conversation, kill_when, load_conversations

# prefect_api: the killed `agent-signals backfill` process reports to the harness's Prefect server
pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_api")]

FINAL = """select user_id, content, tier, kind, status, mention_count, first_seen_at, last_seen_at
           from signals.signals order by user_id, content"""
SINCE, UNTIL = T0 - timedelta(days=1), T0 + timedelta(days=4)
USERS = [f"u{i:02d}" for i in range(8)]


def seed(url: str) -> None:
    """Eight users, three days each: facts stated, then restated on later days."""
    days = [
        [("user", "I'm a staff data engineer. I own the billing service."), ("assistant", "ok")],
        [("user", "I prefer short answers with bullet points."), ("user", "I'm a staff data engineer.")],
        [("user", "I live in Lisbon."), ("user", "I own the billing service, still.")],
    ]
    with psycopg.connect(url, autocommit=True) as conn:
        load_conversations(
            conn,
            Settings(database_url=url),
            *(
                conversation(f"{user}-d{day}", user, turns, start=T0 + timedelta(days=day, minutes=i))
                for i, user in enumerate(USERS)
                for day, turns in enumerate(days)
            ),
        )


def final(url: str) -> list:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(FINAL).fetchall()


def extract(url: str, kind: str = "scheduled", **overrides) -> dict:
    """A run on the database at `url`, with these settings overrides."""
    return asyncio.run(extract_signals(kind=kind, settings=Settings(database_url=url, **overrides)))


def backfill(url: str, **kwargs) -> dict:
    return asyncio.run(
        backfill_signals(since=SINCE, until=UNTIL, settings=Settings(database_url=url), **kwargs)
    )


def test_the_deployments_are_what_deploy_prefect_yaml_declares():
    from agent_signals.flows.deployments import build

    spec = yaml.safe_load((Settings().database.project_dir / "deploy" / "prefect.yaml").read_text())
    deployments = {d["name"]: d for d in spec["deployments"]}
    scheduled, backfills = deployments["scheduled"], deployments["backfill"]
    assert scheduled["entrypoint"] == "src/agent_signals/flows/extract.py:extract_signals"
    assert scheduled["schedules"] == [{"cron": "0 */6 * * *", "timezone": "UTC", "active": True}]
    assert scheduled["concurrency_limit"] == {"limit": 1, "collision_strategy": "CANCEL_NEW"}
    assert backfills["entrypoint"] == "src/agent_signals/flows/backfill.py:backfill_signals"
    assert {"since", "until", "users", "slice", "dry_run"} <= set(
        inspect.signature(backfill_signals.fn).parameters
    )

    built = {d.name: d for d in build(Settings())}  # what `agent-signals serve` serves
    schedule = built["scheduled"].schedules[0].schedule
    assert (schedule.cron, schedule.timezone) == ("0 */6 * * *", "UTC")
    assert built["scheduled"].concurrency_limit == 1
    assert built["scheduled"].concurrency_options.collision_strategy.value == "CANCEL_NEW"
    assert built["backfill"].schedules == [] and built["backfill"].parameters == {
        "slice": "1d",
        "dry_run": False,
    }


def test_a_backfill_equals_a_scheduled_run_over_the_same_messages(new_database):
    scheduled, replayed = new_database(), new_database()
    seed(scheduled)
    seed(replayed)
    extract(scheduled)
    summary = backfill(replayed)
    assert summary["kind"] == "backfill" and summary["status"] == "succeeded"
    assert final(replayed) == final(scheduled) != []
    with psycopg.connect(replayed, autocommit=True) as conn:
        window = conn.execute(
            "select window_start, window_end, parameters ->> 'slice' from ops.runs"
        ).fetchone()
        assert window == (SINCE, UNTIL, "1d")
        assert conn.execute("select count(*) from ops.backfill_slices").fetchone()[0] == 5
    again = backfill(replayed)  # the same backfill again: every slice is done, nothing is called
    assert again["llm_calls"] == 0 and again["actions"] == {"slices_already_done": 5}
    assert final(replayed) == final(scheduled)


@pytest.mark.slow
def test_a_backfill_killed_half_way_finishes_with_the_same_result(new_database):
    reference, crashed = new_database(), new_database()
    seed(reference)
    seed(crashed)
    backfill(reference)

    env = {**os.environ, "DATABASE_URL": crashed, "AGENT_SIGNALS_OFFLINE_LATENCY_MS": "300",
           "AGENT_SIGNALS_CONCURRENCY": "1"}  # fmt: skip
    args = [
        "backfill",
        "--since",
        SINCE.strftime("%Y-%m-%dT%H:%M:%S"),
        "--until",
        UNTIL.strftime("%Y-%m-%dT%H:%M:%S"),
    ]
    kill_when(args, env, crashed, "select count(*) from ops.backfill_slices", 2)

    resumed = backfill(crashed)
    assert resumed["actions"].get("slices_already_done", 0) >= 2
    assert final(crashed) == final(reference)
    with psycopg.connect(crashed, autocommit=True) as conn:
        statuses = [r[0] for r in conn.execute("select status from ops.runs order by started_at")]
    assert statuses == ["abandoned", "succeeded"]


def test_a_dry_run_changes_no_row_and_says_what_would_change(new_database):
    url = new_database()
    seed(url)
    tables = ("signals.signals", "signals.evidence", "signals.events", "signals.watermarks", "ops.runs",
              "ops.failures", "ops.backfill_slices", "signals.dirty_users")  # fmt: skip

    def counts():
        with psycopg.connect(url, autocommit=True) as conn:
            return {t: conn.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}

    before = counts()
    summary = backfill(url, dry_run=True)
    assert counts() == before
    assert summary["actions"]["created"] > 0 and summary["llm_calls"] > 0


def test_the_budget_stops_a_run_and_the_next_run_finishes_the_work(new_database):
    reference, budgeted = new_database(), new_database()
    seed(reference)
    seed(budgeted)
    extract(reference)

    one_by_one = {"concurrency": 1, "shard_size": 2}
    stopped = extract(budgeted, **one_by_one, max_run_tokens=1500)  # a few users' worth
    assert stopped["status"] == "budget_exhausted"
    assert (
        0 < stopped["users"] < len(USERS)
        and stopped["skipped_users"]["budget"] == len(USERS) - stopped["users"]
    )
    with psycopg.connect(budgeted, autocommit=True) as conn:
        assert conn.execute("select status from ops.runs").fetchone()[0] == "budget_exhausted"

    rest = extract(budgeted, **one_by_one)
    assert rest["users"] == len(USERS) - stopped["users"] and rest["status"] == "succeeded"
    assert final(budgeted) == final(reference)


def test_two_concurrent_runs_never_process_one_user_twice(new_database):
    url = new_database()
    seed(url)
    slow = {"concurrency": 1, "shard_size": 1, "offline_latency_ms": 500}

    with ThreadPoolExecutor(2) as pool, psycopg.connect(url, autocommit=True) as conn:
        # two runs at once, each in its own event loop; the second starts once the first is under way
        first = pool.submit(extract, url, "scheduled", **slow)
        deadline = time.monotonic() + 120
        while conn.execute("select count(*) from signals.watermarks").fetchone()[0] == 0:
            assert not first.done() and time.monotonic() < deadline
            time.sleep(0.02)
        second = pool.submit(extract, url, "manual", **slow)
        runs = [first.result(), second.result()]
    busy = sum(r["skipped_users"].get("busy", 0) for r in runs)
    assert busy > 0, "the runs did not overlap: the test would prove nothing"
    # every user was extracted exactly once, by one run or the other, never by both
    assert sum(r["llm_calls_by_purpose"].get("extract", 0) for r in runs) == len(USERS)
    assert sum(r["users"] for r in runs) == len(USERS)
    with psycopg.connect(url, autocommit=True) as conn:
        pending = conn.execute("select count(*) from signals.watermarks").fetchone()[0]
    assert pending == 3 * len(USERS)


def test_the_rate_limiter_paces_requests_and_tokens():
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    async def calls(limiter: RateLimiter, sizes: list[int]) -> list[float]:
        slept.clear()
        for size in sizes:
            await limiter.acquire(size)
        return list(slept)

    per_minute = RateLimiter(2, None, clock=lambda: now[0], sleep=sleep)
    assert asyncio.run(calls(per_minute, [1, 1, 1, 1])) == pytest.approx(
        [30.0, 30.0]
    )  # a burst of 2, then 1 per 30 s
    tokens = RateLimiter(None, 600, clock=lambda: now[0], sleep=sleep)
    assert asyncio.run(calls(tokens, [600, 300])) == pytest.approx([30.0])  # 300 tokens refill in 30 s
    unlimited = RateLimiter(None, None, clock=lambda: now[0], sleep=sleep)
    assert asyncio.run(calls(unlimited, [10**9] * 3)) == []


def test_each_run_publishes_its_report_as_an_artifact(conn, settings, scripted):
    load_conversations(conn, settings, conversation("r1", "rita", [("user", "I'm a pilot.")]))
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))

    async def artifacts():
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

        async with get_client() as client:
            return await client.read_artifacts(
                artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["manual-run-report"]))
            )

    found = [a for a in asyncio.run(artifacts()) if summary["run_id"] in (a.description or "")]
    assert found and "## Actions" in found[0].data and "## Slowest users" in found[0].data
