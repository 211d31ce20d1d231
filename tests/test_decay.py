"""The decay formula (core/decay.py): the pure function called directly, and the SQL that decides decay
(signals.retention, update_decay.sql, archive_decayed.sql) agreeing with it on the real database, with the
constants passed as query parameters (defaults and other values alike)."""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

import pytest

from agent_signals.config import Settings
from agent_signals.core.decay import SCORE_STEP, Decay, query_params
from agent_signals.store.sqlfiles import query

AT = datetime(2026, 6, 1, 12, tzinfo=UTC)
DEFAULT = Decay(base_days=30.0, mention_boost=0.5, archive_below=0.05)
SLOW = Decay(base_days=90.0, mention_boost=2.0, archive_below=0.2)
# (age in days, mentions): fresh, one scale, reinforced, just under the default threshold, fractional age,
# seen after the reference time, a count under one, many mentions
CASES = [(0, 1), (30, 1), (30, 3), (90, 1), (12.5, 2), (-3, 1), (45, 0), (400, 12)]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("age", "mentions", "expected"),
    [
        (0, 1, 1.0),
        (30, 1, math.exp(-1)),  # S = 30
        (30, 3, math.exp(-0.5)),  # S = 30 * (1 + 0.5 * 2) = 60
        (90, 1, math.exp(-3)),  # 0.0498: under the 0.05 archive threshold
        (45, 2, math.exp(-1)),  # S = 45
        (-3, 1, 1.0),  # last seen after the reference time: no negative age
        (30, 0, math.exp(-1)),  # a count under one counts as one
    ],
)
def test_retention_golden_values(age, mentions, expected):
    assert DEFAULT.retention(age, mentions) == pytest.approx(expected, rel=1e-12)


@pytest.mark.unit
def test_each_mention_stretches_the_scale_and_slows_the_decay():
    assert [DEFAULT.scale_days(m) for m in (1, 2, 3, 5)] == [30.0, 45.0, 60.0, 90.0]
    assert DEFAULT.retention(60, 1) < DEFAULT.retention(60, 2) < DEFAULT.retention(60, 5)
    assert Decay(30.0, 0.0, 0.05).retention(60, 9) == DEFAULT.retention(60, 1)  # no boost: mentions ignored


@pytest.mark.unit
def test_the_archive_threshold_and_the_time_of_the_reference():
    assert DEFAULT.archives(DEFAULT.retention(90, 1)) and not DEFAULT.archives(DEFAULT.retention(89, 1))
    assert DEFAULT.retention_at(AT - timedelta(days=30, hours=12), 1, AT) == pytest.approx(
        math.exp(-30.5 / 30)
    )


@pytest.mark.unit
def test_the_configured_values_are_the_query_parameters():
    settings = Settings(decay_base_days=90, decay_mention_boost=2, archive_below=0.2)
    assert Decay.of(settings) == SLOW
    params = query_params(settings, AT)
    assert params.keys() == {"at", "decay"} and params["at"] == AT
    assert json.loads(params["decay"]) == {**asdict(SLOW), "score_step": SCORE_STEP}
    assert asdict(SLOW) | {"base_days": 90.0, "mention_boost": 2.0, "archive_below": 0.2} == asdict(SLOW)


@pytest.mark.db
@pytest.mark.parametrize("decay", [DEFAULT, SLOW], ids=["default", "slow"])
def test_the_sql_retention_equals_the_python_formula(conn, decay):
    for age, mentions in CASES:
        params = {**decay.query_params(AT), "last_seen_at": AT - timedelta(days=age), "mentions": mentions,
                  "base_days": decay.base_days, "boost": decay.mention_boost}  # fmt: skip
        sql, one_by_one = conn.execute(
            "select signals.retention(%(last_seen_at)s, %(mentions)s, %(at)s, %(decay)s::jsonb),"
            " signals.retention(%(last_seen_at)s, %(mentions)s, %(at)s, %(base_days)s, %(boost)s)",
            params,
        ).fetchone()
        assert sql == pytest.approx(decay.retention(age, mentions), rel=1e-12), (age, mentions)
        assert one_by_one == sql  # the constants given one by one: the same function


@pytest.mark.db
@pytest.mark.parametrize("decay", [DEFAULT, SLOW], ids=["default", "slow"])
def test_the_decay_statements_score_and_archive_as_the_python_formula(conn, settings, decay):
    run_id = uuid.uuid4()
    conn.execute("insert into ops.runs (run_id, kind) values (%s, 'manual')", [run_id])
    rows = {}
    for i, (age, mentions) in enumerate(CASES):
        for tier in ("core", "contextual"):
            signal_id = uuid.uuid4()
            seen = AT - timedelta(days=age)
            conn.execute(
                """insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin,
                                                status, mention_count, first_seen_at, last_seen_at, decay_score)
                   values (%s, %s, %s, %s, 'role', %s, 'inferred', 'active', %s, %s, %s, 1.0)""",
                [
                    signal_id,
                    f"u{i}",
                    f"fact {i} {tier}",
                    f"fact {i} {tier}",
                    tier,
                    max(mentions, 1),
                    seen,
                    seen,
                ],
            )
            rows[signal_id] = (tier, decay.retention(age, max(mentions, 1)))
    params = {**decay.query_params(AT), "run_id": run_id}
    conn.execute(query("upkeep/archive_decayed"), params)
    conn.execute(query("upkeep/update_decay"), params)
    stored = dict(
        (r[0], r[1:])
        for r in conn.execute(
            "select signal_id, status, decay_score from signals.signals where signal_id = any(%s)",
            [list(rows)],
        )
    )
    for signal_id, (tier, retention) in rows.items():
        status, score = stored[signal_id]
        archived = tier == "contextual" and decay.archives(retention)
        assert status == ("archived" if archived else "active"), (tier, retention)
        assert score == pytest.approx(retention, abs=SCORE_STEP)


@pytest.mark.db
@pytest.mark.parametrize("decay", [DEFAULT, SLOW], ids=["default", "slow"])
def test_the_caps_rule_reads_retention_with_the_configured_values(conn, settings, decay):
    """The cap's deterministic rule demotes the lowest retention first: apply_cap_signals computes it with the
    configured scale and boost, not the SQL function's built-in defaults."""
    for i, (age, mentions) in enumerate(CASES):
        seen = AT - timedelta(days=age)
        conn.execute(
            """insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin,
                                            status, mention_count, first_seen_at, last_seen_at, decay_score)
               values (%s, 'capped', %s, %s, 'role', 'core', 'inferred', 'active', %s, %s, %s, 1.0)""",
            [uuid.uuid4(), f"fact {i}", f"fact {i}", max(mentions, 1), seen, seen],
        )
    with conn.transaction():
        rows = conn.execute(
            query("shard_writer/apply_cap_signals"), {"user_ids": ["capped"], **decay.query_params(AT)}
        ).fetchall()
    expected = sorted(decay.retention(age, max(mentions, 1)) for age, mentions in CASES)
    assert sorted(row[9] for row in rows) == pytest.approx(expected, rel=1e-12)


@pytest.mark.db
def test_the_sql_formula_is_bit_for_bit_the_one_with_its_constants_as_parameters(conn):
    """signals.retention reading its constants from one value gives the very doubles of the formula written
    with them as parameters, as it was before (byte-identical scores, archives and orders)."""
    before = """exp(-greatest(extract(epoch from (%(at)s - s.seen)) / 86400.0, 0)
                / (%(base_days)s * (1 + %(boost)s * (greatest(s.mentions, 1) - 1))))"""
    for decay in (DEFAULT, SLOW, Decay(7.3, 0.1, 0.3), Decay(1 / 3, 2 / 7, 0.1 + 0.2)):
        params = {**decay.query_params(AT), "base_days": decay.base_days, "boost": decay.mention_boost}
        differ = conn.execute(
            f"""select count(*) filter (where {before} <> signals.retention(s.seen, s.mentions, %(at)s,
                                                                          %(decay)s::jsonb)),
                       count(*)
                from (select %(at)s - make_interval(secs => i * 997.13) as seen, i %% 9 as mentions
                      from generate_series(-50, 20000) i) s""",
            params,
        ).fetchone()
        assert differ == (0, 20051), decay
