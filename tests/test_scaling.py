"""Sharding and distribution: users are sharded by a stable hash; a shard is the unit of work and of retry;
the same flow runs its shards in one process or on a Dask cluster (a local one here), with equal results."""

from __future__ import annotations

import asyncio
from uuid import uuid4

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.stages.run import lifecycle
from agent_signals.stages.run.sharding import shard_of, shards
from agent_signals.store.ledger import runs
from agent_signals.store.ledger.runs import RunStats
from agent_signals.store.source import Pending
from tests.test_crash import FINAL, USERS, reference_and_twin, run_on


@pytest.mark.unit
def test_shard_of_is_a_stable_hash():
    # md5-based: the same on every machine and process, unlike Python's salted hash()
    assert [shard_of(u, 16) for u in ("u000001", "alice", "bob@example.com")] == [
        shard_of(u, 16) for u in ("u000001", "alice", "bob@example.com")
    ]
    assert shard_of("alice", 16) == int.from_bytes(bytes.fromhex("6384e2b2"), "big") % 16  # md5("alice")
    spread = {shard_of(f"u{i:06d}", 16) for i in range(500)}
    assert spread == set(range(16))


@pytest.mark.unit
def test_shards_cover_every_pending_user_once_in_parts_of_at_most_shard_size():
    settings = Settings(shards=4, shard_size=3)
    pending = [Pending(f"u{i:03d}", 2) for i in range(40)]
    cut = list(shards(pending, settings))
    users = [u for shard in cut for u in shard.user_ids]
    assert sorted(users) == [p.user_id for p in pending]
    assert all(len(shard.user_ids) <= 3 for shard in cut)
    assert all(shard_of(u, 4) == shard.number for shard in cut for u in shard.user_ids)
    assert cut == list(shards(list(reversed(pending)), settings))  # the order of the scan does not matter


@pytest.mark.unit
def test_run_stats_merge_adds_every_figure():
    a, b = RunStats(users=2, llm_calls=2, cost_usd=0.5), RunStats(users=3, llm_calls=1, failures=1)
    a.actions["created"], b.actions["created"] = 2, 5
    b.stage_seconds["process"] = 1.5
    b.note_duration("u1", 2.0)
    a.merge(b)
    assert (a.users, a.llm_calls, a.failures, a.cost_usd) == (5, 3, 1, 0.5)
    assert a.actions["created"] == 7 and a.stage_seconds["process"] == 1.5 and a.slowest == [(2.0, "u1")]


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_harness")
def test_a_run_on_a_local_dask_cluster_equals_a_run_in_one_process(new_database):
    reference, distributed = reference_and_twin(new_database)
    # a local cluster of 2 worker processes, built from the run's settings as the run starts;
    # 16 users in shards of at most 3: at least 6 tasks over the 2 workers
    summary = run_on(distributed, runner="dask", dask_workers=2, shards=4, shard_size=3)
    assert summary["status"] == "succeeded" and summary["users"] == USERS
    assert summary["llm_calls_by_purpose"] == {"extract": USERS}
    with psycopg.connect(distributed, autocommit=True) as conn:
        got = conn.execute(FINAL).fetchall()
        ledger = conn.execute("select users, llm_calls, status from ops.runs").fetchall()
    with psycopg.connect(reference, autocommit=True) as conn:
        assert got == conn.execute(FINAL).fetchall()
    assert ledger == [(USERS, USERS, "succeeded")]  # the shards' figures, merged into the run's row


@pytest.mark.unit
def test_a_run_and_a_shard_travel_as_flow_run_parameters():
    import json
    from datetime import UTC, datetime
    from uuid import uuid4

    from agent_signals.stages.run.context import RunSpec
    from agent_signals.stages.run.sharding import Shard
    from agent_signals.store.source import Window

    settings = Settings()
    window = Window(
        until=datetime(2026, 5, 2, tzinfo=UTC), since=datetime(2026, 5, 1, tzinfo=UTC), users=("a", "b"),
        ignore_watermarks=True,
    )  # fmt: skip
    spec = RunSpec(settings, uuid4(), "backfill", window, "abc123", False, (120, 0.25))
    params = json.loads(json.dumps(spec.to_params()))  # what Prefect stores
    assert RunSpec.from_params(params, settings) == spec
    shard = Shard(3, 1, ("u1", "u2"))
    assert Shard.from_params(json.loads(json.dumps(shard.to_params()))) == shard

    stats = RunStats(users=4, llm_calls=4, cost_usd=0.1)
    stats.actions["created"] = 7
    stats.note_duration("u1", 1.0)  # user ids stay in the process: not in the aggregates
    back = RunStats.from_aggregates(json.loads(json.dumps(stats.aggregates())))
    assert (back.users, back.llm_calls, back.cost_usd, back.actions) == (4, 4, 0.1, stats.actions)
    assert back.slowest == [] and "u1" not in json.dumps(stats.aggregates())


@pytest.mark.unit
def test_a_pool_is_concurrency_plus_one_within_a_share_of_the_free_connections():
    assert lifecycle.pool_size(8, 97) == 9
    assert lifecycle.pool_size(128, 97) == int(97 * lifecycle.POOL_SHARE_OF_FREE) < 129
    assert lifecycle.pool_size(8, 0) == lifecycle.POOL_MIN


@pytest.mark.db
def test_a_runs_pool_never_asks_the_server_for_more_connections_than_it_has(settings):
    """At a concurrency above the server's max_connections, every connection the pool may open is opened
    (without the cap, the connections past the server's limit fail with "too many clients")."""

    async def go() -> int:
        url = settings.database.url
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as ledger:
            free = await runs.free_connections(ledger)
            pool = lifecycle._pool(url, settings.replace(concurrency=256), uuid4(), free)
            await pool.open(wait=True)
            try:
                held = [await pool.getconn(timeout=60) for _ in range(pool.max_size)]
                for conn in held:
                    await pool.putconn(conn)
            finally:
                await pool.close()
            return pool.max_size

    assert asyncio.run(go()) < 257
