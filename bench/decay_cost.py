"""What the decay and checks stages cost as the stored signals grow while a run touches the same users:
issue 19, point 5 ("cost follows the users touched"). Two scratch databases, one with --users users of
--per-user signals each (1x) and one with ten times the users (10x); in both the same --touched users are
marked dirty (what a run's writes do) and own the only signals due for archiving (two each). In each, per
repetition, times the statements of the stages themselves (the decay ones in a transaction rolled back, so
that every repetition starts from the same rows):

- decay: store/upkeep.decay (end the signals whose validity ended, archive the due signals, score the dirty users' signals);
- take: store/upkeep.take_dirty_users (the refresh's first step: the users handed to the refresh, scored
  at the run's time);
- checks: adapters/expectations.check_tables (Great Expectations over the run's users);

and, for comparison, what they replaced: the whole-table decay statements (every active inferred signal
scored, every contextual one tested) and the checks over every user (everyone=True), measured after. The
two sizes are measured in turn, after one warm-up repetition each. Prints a table, then one JSON line (medians, seconds;
ratios 10x over 1x).

    python bench/decay_cost.py [--users 2000] [--per-user 20] [--touched 100] [--reps 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import psycopg  # noqa: E402

from agent_signals.config import Settings  # noqa: E402
from agent_signals.core.decay import SCORE_STEP, Decay, query_params  # noqa: E402
from bench import scratch  # noqa: E402

AT = datetime(2026, 6, 1, tzinfo=UTC)

# Every user's signals: 5 core and the rest contextual, 1 to 5 mentions, last seen 0 to 59 days before AT
# (none due with the default formula: a contextual signal mentioned once is due after 90 days); a touched
# user also has two contextual signals last seen 200 days before AT (due). One evidence row each.
SEED = """
insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                             mention_count, first_seen_at, last_seen_at, decay_score)
select gen_random_uuid(), 'u' || u, 'fact ' || u || ' ' || j, 'fact ' || u || ' ' || j, 'role',
       case when j < 5 then 'core' else 'contextual' end, 'inferred', 'active',
       1 + (u * 7 + j) %% 5, seen, seen, 1.0
from generate_series(0, %(users)s - 1) u, generate_series(0, %(per_user)s - 1) j,
     lateral (select %(at)s::timestamptz - ((u * 13 + j * 3) %% 60) * interval '1 day' as seen) t
union all
select gen_random_uuid(), 'u' || u, 'old fact ' || u || ' ' || j, 'old fact ' || u || ' ' || j, 'role',
       'contextual', 'inferred', 'active', 1, %(at)s::timestamptz - interval '200 days',
       %(at)s::timestamptz - interval '200 days', 1.0
from generate_series(0, %(touched)s - 1) u, generate_series(0, 1) j
"""
EVIDENCE = """
insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at)
select signal_id, 'c-' || user_id, 'm-' || signal_id, content, last_seen_at from signals.signals
"""
TOUCH = [  # the run's users marked dirty (what its writes do), the run recorded
    "insert into signals.dirty_users (user_id) select 'u' || u from generate_series(0, %(touched)s - 1) u"
    " on conflict do nothing",
    "insert into ops.runs (run_id, kind, window_end) values (%(run_id)s, 'manual', %(at)s)",
]

# What the decay stage ran before (issue 19, point 5): every active inferred signal scored, every active
# contextual one tested against the threshold.
WHOLE_TABLE_DECAY = [
    """with archived as (
        update signals.signals s
        set status = 'archived',
            decay_score = signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(base_days)s, %(boost)s),
            updated_at = now()
        where s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
          and signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(base_days)s, %(boost)s) < %(threshold)s
        returning s.signal_id, s.user_id, to_jsonb(s) - 'embedding' as after
    )
    insert into signals.events (signal_id, user_id, run_id, action, actor, after)
    select signal_id, user_id, %(run_id)s, 'archive', 'pipeline', after from archived""",
    """update signals.signals s
    set decay_score = r.score
    from (
        select signal_id, signals.retention(last_seen_at, mention_count, %(at)s, %(base_days)s, %(boost)s) as score
        from signals.signals
        where origin = 'inferred' and status = 'active'
    ) r
    where s.signal_id = r.signal_id and abs(s.decay_score - r.score) >= %(score_step)s""",
]


# The checks read context.user_context, which a run's refresh builds (dbt) before them: a stand-in with the
# columns they read and a current row for every user.
VIEW_STAND_IN = [
    "create schema if not exists context",
    "create table context.user_context (user_id text primary key, refreshed_at timestamptz not null)",
    "insert into context.user_context select distinct user_id, 'infinity'::timestamptz from signals.signals",
]


def seed(url: str, users: int, per_user: int, touched: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SEED, {"users": users, "per_user": per_user, "touched": touched, "at": AT})
        conn.execute(EVIDENCE)
        for statement in VIEW_STAND_IN:
            conn.execute(statement)
        conn.execute("delete from signals.dirty_users")  # the seeding marked everyone: a refresh cleared them
        conn.execute("vacuum analyze")


async def measure_decay(url: str, touched: int, whole_table: bool = False) -> dict[str, float]:
    """One repetition of the decay stage and the refresh's take (or, `whole_table`, of the statements the
    decay stage ran before), in a transaction rolled back: every repetition starts from the same rows."""
    from agent_signals.store import upkeep

    settings = Settings(database_url=url)
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    try:
        run_id = uuid.uuid4()
        params = {**query_params(settings, AT), "run_id": run_id}
        async with conn.transaction(force_rollback=True):
            for statement in TOUCH:
                await conn.execute(statement, {"touched": touched, "run_id": run_id, "at": AT})
            started = time.perf_counter()
            if whole_table:
                decay = Decay.of(settings)
                constants = {"base_days": decay.base_days, "boost": decay.mention_boost,
                             "threshold": decay.archive_below, "score_step": SCORE_STEP}  # fmt: skip
                for statement in WHOLE_TABLE_DECAY:
                    await conn.execute(statement, params | constants)
                return {"decay_whole_table_s": time.perf_counter() - started}
            _ended, archived = await upkeep.decay(conn, params)
            decay_s = time.perf_counter() - started
            started = time.perf_counter()
            await upkeep.take_dirty_users(conn, settings, run_id)
            take_s = time.perf_counter() - started
    finally:
        await conn.close()
    assert archived == 2 * touched, archived  # the due signals, and only them
    return {"decay_s": decay_s, "take_s": take_s}


def prepare_checks(url: str, touched: int) -> uuid.UUID:
    """A run whose refresh took the touched users (committed: GX reads on its own connection)."""
    run_id = uuid.uuid4()
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in TOUCH:
            conn.execute(statement, {"touched": touched, "run_id": run_id, "at": AT})
        conn.execute("insert into ops.touched_users (run_id, user_id) select %s, user_id from signals.dirty_users",
                     [run_id])  # fmt: skip
    return run_id


def measure_checks(url: str, run_id: uuid.UUID, everyone: bool = False) -> dict[str, float]:
    """One repetition of the checks over the run's users (or, `everyone`, over every user)."""
    from agent_signals.adapters import expectations

    settings = Settings(database_url=url)
    started = time.perf_counter()
    report = expectations.check_tables(settings, url, run_id, everyone=everyone)
    seconds = time.perf_counter() - started
    assert not report.failed_critical, report
    return {"checks_everyone_s" if everyone else "checks_s": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2000, help="users at 1x (10x: ten times as many)")
    parser.add_argument("--per-user", type=int, default=20, help="signals per user")
    parser.add_argument("--touched", type=int, default=100, help="users the run touches (both sizes)")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    databases: dict[int, str] = {}
    figures: dict[int, dict[str, list[float]]] = {1: {}, 10: {}}
    try:
        for factor in (1, 10):
            databases[factor] = scratch.create(f"bench_decay{factor}")
            seed(scratch.url_of(databases[factor]), args.users * factor, args.per_user, args.touched)
        runs = {
            factor: prepare_checks(scratch.url_of(name), args.touched) for factor, name in databases.items()
        }
        # what the stages run now, then what they replaced (whose rolled-back rewrite of every row would
        # leave the 10x side with ten times the dead rows to step over)
        for before in (False, True):
            for rep in range(args.reps + 1):  # the first: a warm-up (caches, GX's imports), not counted
                for factor, name in databases.items():  # interleaved: the machine's noise falls on both
                    url = scratch.url_of(name)
                    measured = {
                        **asyncio.run(measure_decay(url, args.touched, whole_table=before)),
                        **measure_checks(url, runs[factor], everyone=before),
                    }
                    for key, value in measured.items():
                        if rep:
                            figures[factor].setdefault(key, []).append(value)
    finally:
        for name in databases.values():
            scratch.drop(name)
    medians = {f: {k: statistics.median(v) for k, v in figures[f].items()} for f in (1, 10)}
    signals = {f: args.users * f * args.per_user + 2 * args.touched for f in (1, 10)}
    result: dict[str, object] = {
        "users_1x": args.users, "signals_1x": signals[1], "signals_10x": signals[10],
        "touched_users": args.touched, "reps": args.reps,
    }  # fmt: skip
    print(f"{'seconds (median of ' + str(args.reps) + ')':<34} {'1x':>9} {'10x':>9} {'10x/1x':>7}")
    for key in ("decay_s", "take_s", "checks_s", "decay_whole_table_s", "checks_everyone_s"):
        one, ten = medians[1][key], medians[10][key]
        result[f"{key}_1x"], result[f"{key}_10x"] = round(one, 4), round(ten, 4)
        result[f"{key.removesuffix('_s')}_ratio"] = round(ten / one, 2)
        print(f"{key:<34} {one:>9.4f} {ten:>9.4f} {ten / one:>7.2f}")
    print(f"stored signals: {signals[1]:,} and {signals[10]:,}; touched users: {args.touched}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
