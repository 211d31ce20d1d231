"""Decay and the table checks cost what the run touches, not the table (issue 19, point 5): the due signals
read from an index (signals.due_for_archive) are exactly those the scan of every signal found; scores
are rewritten for the dirty users only; the expectations read only the run's users. Real PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from agent_signals.adapters import expectations
from agent_signals.core.decay import SCORE_STEP, Decay
from agent_signals.store import upkeep
from agent_signals.store.sqlfiles import query

AT = datetime(2026, 6, 1, 12, tzinfo=UTC)
DEFAULT = Decay(base_days=30.0, mention_boost=0.5, archive_below=0.05)
CONFIGS = {
    "default": DEFAULT,
    "slow": Decay(base_days=90.0, mention_boost=2.0, archive_below=0.2),
    "no-boost": Decay(base_days=7.0, mention_boost=0.0, archive_below=0.5),
    "never": Decay(base_days=30.0, mention_boost=0.5, archive_below=0.0),
}
# what the decay stage ran before the index: every active contextual inferred signal tested
SCAN = """select signal_id from signals.signals s
          where s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
            and signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(base_days)s, %(boost)s)
                < %(threshold)s"""
DUE = "select signals.due_for_archive(%(at)s, %(decay)s::jsonb)"


def scan_params(decay: Decay) -> dict[str, object]:
    """The decay statements' parameters, and SCAN's: the constants one by one."""
    return {**decay.query_params(AT), "base_days": decay.base_days, "boost": decay.mention_boost,
            "threshold": decay.archive_below}  # fmt: skip


def insert_signal(conn, user_id: str, seen: datetime, mentions: int = 1, tier: str = "contextual",
                  status: str = "active", score: float = 1.0) -> uuid.UUID:  # fmt: skip
    signal_id = uuid.uuid4()
    conn.execute(
        """insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                                        mention_count, first_seen_at, last_seen_at, decay_score)
           values (%s, %s, %s, %s, 'role', %s, 'inferred', %s, %s, %s, %s, %s)""",
        [
            signal_id,
            user_id,
            f"fact {signal_id}",
            f"fact {signal_id}",
            tier,
            status,
            mentions,
            seen,
            seen,
            score,
        ],
    )
    conn.execute(
        "insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at) "
        "values (%s, 'c', %s, 'q', %s)",
        [signal_id, str(signal_id), seen],
    )
    return signal_id


@pytest.mark.db
@pytest.mark.parametrize("decay", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_due_signals_are_those_the_scan_of_every_signal_finds(conn, decay):
    """Ages on either side of each mention count's archive age (to the millisecond), and rows that are
    never due (core, archived)."""
    for mentions in (1, 2, 3, 7, 40):
        boundary = (
            decay.scale_days(mentions) * math.log(1 / decay.archive_below) if decay.archive_below else 90
        )
        for delta_s in (-86400, -2, -0.001, 0, 0.001, 2, 86400):
            seen = AT - timedelta(days=boundary, seconds=delta_s)
            insert_signal(conn, f"u{mentions}", seen, mentions)
            insert_signal(conn, f"u{mentions}", seen, mentions, tier="core")
            insert_signal(conn, f"u{mentions}", seen, mentions, status="archived")
        insert_signal(conn, f"u{mentions}", AT + timedelta(days=3), mentions)  # seen after the run's time
    params = scan_params(decay)
    due = {row[0] for row in conn.execute(DUE, params)}
    assert due == {row[0] for row in conn.execute(SCAN, params)}
    assert bool(due) == (decay.archive_below > 0)


@pytest.mark.unit
def test_every_table_check_is_scoped_to_the_run_and_everyone_drops_the_scope():
    """Each expectation reads the run's users (ops.run_users) or the run's touched_users rows; `everyone`
    replaces the first scope by `user_id is not null`."""

    for check in expectations.TABLE_CHECKS:
        sql = query(check.sql_name)
        assert expectations.RUN_SCOPE in sql or "t.run_id = %(run_id)s" in sql, check.sql_name
        run_id = uuid.uuid4()
        assert f"'{run_id}'::uuid" in expectations._scoped(sql, run_id, everyone=False)
        assert expectations.RUN_SCOPE.split("(")[1] not in expectations._scoped(sql, run_id, everyone=True)


@pytest.mark.db
def test_archiving_scoring_and_the_checks_read_indexes_not_the_table(conn, settings):
    """With 6,000 signals of 300 users stored (none due) and one user dirty, no statement of the decay stage,
    the refresh's take or the table checks scans signals.signals or signals.evidence (the plan, after
    ANALYZE: deterministic for these rows)."""
    conn.execute(
        """insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                                        mention_count, first_seen_at, last_seen_at, decay_score)
           select gen_random_uuid(), 'u' || (i %% 300), 'fact ' || i, 'fact ' || i, 'role',
                  case when i %% 4 = 0 then 'core' else 'contextual' end, 'inferred', 'active',
                  1 + i %% 5, %(at)s::timestamptz - (i %% 40) * interval '1 day',
                  %(at)s::timestamptz - (i %% 40) * interval '1 day', 1.0
           from generate_series(1, 6000) i""",
        {"at": AT},
    )
    conn.execute(
        "insert into signals.evidence (signal_id, conversation_id, message_id, quote, message_at) "
        "select signal_id, 'c', signal_id::text, 'q', last_seen_at from signals.signals"
    )
    run_id = uuid.uuid4()
    conn.execute("delete from signals.dirty_users where user_id <> 'u7'")
    conn.execute("insert into ops.runs (run_id, kind, window_end) values (%s, 'manual', %s)", [run_id, AT])
    conn.execute("insert into ops.touched_users (run_id, user_id) values (%s, 'u7')", [run_id])
    conn.execute("analyze")
    params = {**scan_params(DEFAULT), "run_id": run_id, "summaries": False}
    gx_batch = "(SELECT * FROM signals.signals WHERE true)"  # what GX puts for the batch of signals.signals
    statements = {
        name: query(name)
        for name in ("upkeep/archive_decayed", "upkeep/update_decay", "upkeep/rescore_taken_users")
    }
    statements["pending_work: decayed_signals"] = f"select exists ({DUE})"
    for check in expectations.TABLE_CHECKS:
        if check.sql_name == "expectations/expect_views_fresh":
            continue  # reads context.user_context, which no run has built here
        sql = query(check.sql_name).replace("{batch} s", f"{gx_batch} s")
        statements[check.sql_name] = sql.replace("{batch}", f"{gx_batch} as subselect")
    assert _scanned(conn, SCAN, params) == {"signals"}  # what the decay stage read before m018
    for name, sql in statements.items():
        assert not _scanned(conn, sql, params) & {"signals", "evidence"}, name


def _scanned(conn, sql: str, params: dict) -> set[str]:
    """The tables the plan of `sql` reads whole: a sequential scan, or an index scan without a condition (a
    partial index read from end to end)."""
    plan = conn.execute("explain (format json) " + sql, params).fetchone()[0]
    return {node["Relation Name"] for node in _nodes(plan[0]["Plan"]) if _whole(node)}


def _whole(node: dict) -> bool:
    if node["Node Type"] == "Seq Scan":
        return True
    if node["Node Type"] in ("Index Scan", "Index Only Scan"):
        return "Index Cond" not in node
    if node["Node Type"] == "Bitmap Heap Scan":
        return any(
            child["Node Type"] == "Bitmap Index Scan" and "Index Cond" not in child for child in _nodes(node)
        )
    return False


def _nodes(node: dict):
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


@pytest.mark.db
def test_scores_are_rewritten_for_the_dirty_users_and_those_the_refresh_takes(conn, settings, database_url):
    """Decay scores the dirty users' signals at the run's time; a user marked after it (a change by hand
    meanwhile) is scored when the refresh takes them; a user nobody touched keeps the score their rows of
    the views were built with."""
    seen = AT - timedelta(days=30)
    touched = insert_signal(conn, "touched", seen)
    later = insert_signal(conn, "later", seen)
    quiet = insert_signal(conn, "quiet", seen)
    archived = insert_signal(conn, "touched", seen, tier="core", status="archived")
    conn.execute("delete from signals.dirty_users where user_id <> 'touched'")
    run_id = uuid.uuid4()
    conn.execute("insert into ops.runs (run_id, kind, window_end) values (%s, 'manual', %s)", [run_id, AT])

    async def stages() -> int:
        aconn = await psycopg.AsyncConnection.connect(database_url, autocommit=True)
        try:
            _ended, archived = await upkeep.decay(aconn, {**DEFAULT.query_params(AT), "run_id": run_id})
            await aconn.execute("insert into signals.dirty_users (user_id) values ('later')")
            await upkeep.take_dirty_users(aconn, settings, run_id)
            return archived
        finally:
            await aconn.close()

    assert asyncio.run(stages()) == 0
    scores = dict(conn.execute("select signal_id, decay_score from signals.signals").fetchall())
    assert scores[touched] == pytest.approx(math.exp(-1), abs=SCORE_STEP)
    assert scores[later] == pytest.approx(math.exp(-1), abs=SCORE_STEP)
    assert scores[quiet] == 1.0  # nobody touched them: the score their rows were built with
    assert scores[archived] == 1.0  # archived signals are not scored


# ---------------------------------------------------------------------------------------------------
# Through the real flow (scripted model, dbt, GX).


def run(settings) -> dict:
    from agent_signals.flows.extract import extract_signals

    return asyncio.run(extract_signals(kind="manual", settings=settings))


def extraction(facts: dict[str, tuple[str, str, str]]):
    """A script: each user message that says a key of `facts` yields that (content, tier), citing the
    message handle given (the message's place in its user's prompt)."""

    def script(prompt):
        text = prompt[-1]["content"]
        actions = [
            {"action": "create", "content": content, "tier": tier, "kind": "role",
             "evidence": [{"message": handle, "quote": said}]}
            for said, (content, tier, handle) in facts.items() if said in text
        ]  # fmt: skip
        return json.dumps({"actions": actions})

    return script


FACTS = {
    "I'm a pilot": ("Works as a pilot", "core", "m1"),
    "I like sailing": ("Likes sailing", "contextual", "m2"),
    "I'm a chef": ("Works as a chef", "core", "m1"),
    "I like chess": ("Likes chess", "contextual", "m2"),
}


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_due_signal_is_archived_by_a_run_that_touched_nobody_else(conn, settings, scripted):
    from tests.builders import conversation, load_conversations

    scripted.script = extraction(FACTS)
    load_conversations(
        conn, settings,
        conversation("al-1", "al", [("user", "I'm a pilot"), ("user", "I like sailing")]),
        conversation("bo-1", "bo", [("user", "I'm a chef"), ("user", "I like chess")]),
    )  # fmt: skip
    assert run(settings)["status"] == "succeeded"
    # al's contextual signal was last seen long ago; the views have been rebuilt since (no one is dirty)
    conn.execute(
        "update signals.signals set last_seen_at = now() - interval '100 days' where content = 'Likes sailing'"
    )
    conn.execute("delete from signals.dirty_users")
    bo_before = conn.execute(
        "select signal_id, decay_score, updated_at from signals.signals where user_id = 'bo' order by 1"
    ).fetchall()
    summary = run(settings)
    assert summary["status"] == "succeeded" and summary["actions"]["archived"] == 1
    run_id = conn.execute("select run_id from ops.runs order by started_at desc limit 1").fetchone()[0]
    assert conn.execute("select user_id, run_id from signals.events where action = 'archive'").fetchall() == [
        ("al", run_id)
    ]
    assert conn.execute("select status from signals.signals where content = 'Likes sailing'").fetchone()[
        0
    ] == ("archived")
    markdown = conn.execute(
        "select context_markdown from context.user_context where user_id = 'al'"
    ).fetchone()
    assert "sailing" not in markdown[0] and "pilot" in markdown[0]
    assert (
        conn.execute(  # bo was not touched: not one of their rows was written
            "select signal_id, decay_score, updated_at from signals.signals where user_id = 'bo' order by 1"
        ).fetchall()
        == bo_before
    )
    assert conn.execute("select user_id from ops.touched_users where run_id = %s", [run_id]).fetchall() == [
        ("al",)
    ]


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_the_checks_read_the_run_users_only_and_a_failure_keeps_them_marked(conn, settings, scripted):
    """An untouched user's broken row (an inferred signal without evidence, written behind the pipeline's
    back) is not read by the run's checks; the same on a user the run touched fails the run, with one
    offending row (the untouched one is not counted), and keeps that user marked: the next run fails too."""
    from tests.builders import conversation, load_conversations

    scripted.script = extraction(FACTS)
    load_conversations(conn, settings, conversation("al-1", "al", [("user", "I'm a pilot")]))
    assert run(settings)["status"] == "succeeded"
    unjustified = (
        "insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, "
        "first_seen_at, last_seen_at) values (gen_random_uuid(), %s, 'Is the CEO', 'is the ceo', 'role', "
        "'contextual', 'inferred', now(), now())"
    )
    conn.execute(unjustified, ["zz"])
    conn.execute("delete from signals.dirty_users where user_id = 'zz'")  # nobody's change: not touched
    load_conversations(conn, settings, conversation("bo-1", "bo", [("user", "I'm a chef")]))
    assert run(settings)["status"] == "succeeded"  # zz's rows were not read
    run_id = conn.execute("select run_id from ops.runs order by started_at desc limit 1").fetchone()[0]
    everyone = expectations.check_tables(settings, settings.database.url, run_id, everyone=True)
    assert everyone.failed_critical == ["every inferred signal has evidence: 1 offending row(s)"]

    conn.execute(unjustified, ["bo"])  # marks bo dirty: the next run reads bo
    for _ in range(2):
        with pytest.raises(Exception, match=r"every inferred signal has evidence: 1 offending row"):
            run(settings)
        assert conn.execute("select user_id from signals.dirty_users").fetchall() == [("bo",)]
