"""The read path (dbt project in dbt/, run through agent_signals.adapters.dbt_views): real PostgreSQL, real dbt."""

from __future__ import annotations

import shutil
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from agent_signals import limits
from agent_signals.adapters import dbt_views
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError

pytestmark = pytest.mark.db

NOW = datetime.now(UTC).replace(microsecond=0)
CONTEXT_COLUMNS = "user_id, context_markdown, manual_count, core_count, contextual_count, summary, fingerprint, refreshed_at"
SIGNAL_COLUMNS = (
    "user_id, bucket, rank, signal_id, content, kind, tier, origin, mention_count, last_seen_at, decay_score"
)


@pytest.fixture
def vs(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The test database's settings, with dbt's target/ and logs/ in a temporary folder of this session."""
    return settings.replace(data_dir=tmp_path_factory.getbasetemp() / "views-data")


def inferred(
    conn: psycopg.Connection,
    user_id: str,
    content: str,
    *,
    tier: str = "core",
    decay: float = 1.0,
    last_seen: datetime = NOW,
    kind: str = "role",
    status: str = "active",
) -> uuid.UUID:
    signal_id = uuid.uuid4()
    conn.execute(
        """insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                                        first_seen_at, last_seen_at, decay_score)
           values (%s, %s, %s, lower(%s), %s, %s, 'inferred', %s, %s, %s, %s)""",
        [signal_id, user_id, content, content, kind, tier, status, last_seen, last_seen, decay],
    )
    return signal_id


def manual(conn: psycopg.Connection, user_id: str, content: str, kind: str = "preference") -> uuid.UUID:
    return conn.execute("select signals.add_signal(%s, %s, %s)", [user_id, content, kind]).fetchone()[0]


def new_run(conn: psycopg.Connection, *touched: str) -> uuid.UUID:
    run_id = uuid.uuid4()
    conn.execute("insert into ops.runs (run_id, kind) values (%s, 'manual')", [run_id])
    for user_id in touched:
        conn.execute("insert into ops.touched_users (run_id, user_id) values (%s, %s)", [run_id, user_id])
    return run_id


def context_rows(conn: psycopg.Connection) -> dict[str, tuple]:
    rows = conn.execute(f"select {CONTEXT_COLUMNS} from context.user_context order by user_id").fetchall()
    return {row[0]: row for row in rows}


def signal_rows(conn: psycopg.Connection, user_id: str | None = None) -> list[tuple]:
    return conn.execute(
        f"select {SIGNAL_COLUMNS} from context.user_signals"
        " where %(u)s::text is null or user_id = %(u)s order by user_id, bucket, rank",
        {"u": user_id},
    ).fetchall()


def markdown(conn: psycopg.Connection, user_id: str) -> str | None:
    row = conn.execute(
        "select context_markdown from context.user_context where user_id = %s", [user_id]
    ).fetchone()
    return row[0] if row else None


def test_connection_env_from_socket_and_tcp_urls():
    env = dbt_views.connection_env("postgresql://postgres@/agent_signals?host=/work/x/pgdata")
    assert env == {
        "AGENT_SIGNALS_DBT_HOST": "/work/x/pgdata",
        "AGENT_SIGNALS_DBT_PORT": "5432",
        "AGENT_SIGNALS_DBT_USER": "postgres",
        "AGENT_SIGNALS_DBT_PASSWORD": "",
        "AGENT_SIGNALS_DBT_DBNAME": "agent_signals",
    }
    env = dbt_views.connection_env("postgresql://ann:s%40cret@db.example:6543/prod?sslmode=require")
    assert env["AGENT_SIGNALS_DBT_HOST"] == "db.example"
    assert env["AGENT_SIGNALS_DBT_PORT"] == "6543"
    assert (env["AGENT_SIGNALS_DBT_USER"], env["AGENT_SIGNALS_DBT_PASSWORD"]) == ("ann", "s@cret")
    assert (env["AGENT_SIGNALS_DBT_DBNAME"], env["AGENT_SIGNALS_DBT_SSLMODE"]) == ("prod", "require")


def test_buckets_hold_their_limits_in_rank_order(conn, vs, capfd):
    manual_ids = [manual(conn, "big", f"My own fact number {i}") for i in range(3)]
    with conn.transaction():
        core = [inferred(conn, "big", f"core {i}", decay=0.5 + i / 100) for i in range(20)]
        # core-worthy but demoted past the cap: contextual with the highest scores
        demoted = [
            inferred(conn, "big", f"demoted {i}", tier="contextual", decay=0.9 + i / 1000) for i in range(10)
        ]
        recent = [
            inferred(conn, "big", f"recent {i}", tier="contextual", decay=0.1 + i / 1000) for i in range(80)
        ]
        # ties on decay_score: the later last_seen_at ranks first
        tie_old = inferred(
            conn, "big", "tie old", tier="contextual", decay=0.5, last_seen=NOW - timedelta(days=2)
        )
        tie_new = inferred(
            conn, "big", "tie new", tier="contextual", decay=0.5, last_seen=NOW - timedelta(days=1)
        )
        inferred(conn, "big", "archived one", tier="contextual", decay=0.99, status="archived")
        inferred(conn, "big", "deleted one", decay=0.99, status="deleted")
    deleted_manual = manual(conn, "big", "A manual fact the user deleted")
    conn.execute("select signals.delete_signal('big', %s)", [deleted_manual])

    capfd.readouterr()
    result = dbt_views.refresh(vs)
    out, err = capfd.readouterr()
    assert result.full and result.models == 6 and result.tests > 20
    assert "PASS" not in out + err and len((out + err).splitlines()) < 5  # quiet

    rows = signal_rows(conn, "big")
    by_bucket: dict[str, list[tuple]] = {}
    for row in rows:
        by_bucket.setdefault(row[1], []).append(row)
    assert [len(by_bucket[b]) for b in ("manual", "core", "contextual")] == [3, 20, 50]
    for bucket_rows in by_bucket.values():
        assert [r[2] for r in bucket_rows] == list(range(1, len(bucket_rows) + 1))

    expected_manual = [
        r[0]
        for r in conn.execute(
            "select signal_id from signals.signals where user_id = 'big' and origin = 'manual' and status = 'active'"
            " order by created_at, signal_id"
        ).fetchall()
    ]
    assert [r[3] for r in by_bucket["manual"]] == expected_manual and set(expected_manual) == set(manual_ids)
    assert [r[3] for r in by_bucket["core"]] == core[::-1]  # decay_score desc
    contextual = [r[3] for r in by_bucket["contextual"]]
    assert contextual[:10] == demoted[::-1]
    # the two 0.5 ties rank above every "recent" signal (at most 0.179), the later last_seen_at first
    assert contextual[10:12] == [tie_new, tie_old]
    assert contextual[12:] == recent[::-1][:38]
    assert all(r[6] == r[1] and r[7] == "inferred" for r in by_bucket["core"] + by_bucket["contextual"])
    assert all(r[7] == "manual" for r in by_bucket["manual"])

    counts = conn.execute(
        "select manual_count, core_count, contextual_count from context.user_context where user_id = 'big'"
    ).fetchone()
    assert counts == (3, 20, 50)
    # readers look a user up by primary key: user_id carries a unique index
    assert (
        conn.execute(
            """select count(*) from pg_index i
           where i.indrelid = 'context.user_context'::regclass and i.indisunique
             and i.indkey::text = (select attnum::text from pg_attribute
                                   where attrelid = 'context.user_context'::regclass and attname = 'user_id')"""
        ).fetchone()[0]
        == 1
    )
    conn.execute("set enable_seqscan = off")
    plan = "\n".join(r[0] for r in conn.execute(
        "explain select context_markdown from context.user_context where user_id = 'big'").fetchall())  # fmt: skip
    assert "Index Scan" in plan


def test_context_markdown_is_exact_and_leaves_empty_buckets_out(conn, vs):
    manual(conn, "al", "Prefers plain language", "writing")
    manual(conn, "al", "Call me Al")
    inferred(conn, "al", "Works as a nurse", decay=0.9)
    inferred(conn, "al", "Leads the night shift", decay=0.95)
    inferred(conn, "al", "Is moving to Lisbon", tier="contextual", decay=0.4)
    inferred(conn, "bo", "Works as a pilot")
    inferred(conn, "bo", "Flies to Oslo next week", tier="contextual")
    conn.execute(
        "insert into signals.summaries (user_id, summary, fingerprint, signal_count) values"
        " ('cy', 'Cy has no signal left.', 'abc123', 0), ('al', 'Al is a nurse.', 'fp-al', 5)"
    )

    dbt_views.refresh(vs)

    assert markdown(conn, "al") == "\n".join([
        "## About this user",
        "### Confirmed by the user",
        "- Prefers plain language",
        "- Call me Al",
        "### Core identity",
        "- Leads the night shift",
        "- Works as a nurse",
        "### Recent context",
        "- Is moving to Lisbon",
    ])  # fmt: skip
    assert markdown(conn, "bo") == (
        "## About this user\n### Core identity\n- Works as a pilot\n### Recent context\n- Flies to Oslo next week"
    )
    assert markdown(conn, "cy") == "## About this user"
    rows = context_rows(conn)
    assert rows["al"][2:7] == (2, 2, 1, "Al is a nurse.", "fp-al")  # the summary's fingerprint
    bo_fingerprint = conn.execute("select signals.fingerprint('bo')").fetchone()[0]
    assert rows["bo"][2:7] == (0, 1, 1, None, bo_fingerprint)
    assert rows["cy"][2:7] == (0, 0, 0, "Cy has no signal left.", "abc123")
    assert set(rows) == {"al", "bo", "cy"}


def test_incremental_refresh_rebuilds_only_the_touched_users(conn, vs):
    for user_id in ("ann", "ben", "cat"):
        inferred(conn, user_id, f"{user_id} works as a chef")
    manual(conn, "cat", "Cat prefers tea")

    first = new_run(conn, "ann", "ben", "cat")
    dbt_views.refresh(vs, first)  # a fresh database: the incremental models create themselves
    before_context, before_signals = context_rows(conn), signal_rows(conn)
    assert set(before_context) == {"ann", "ben", "cat"}

    # nothing changed, nobody touched: nothing changes, refreshed_at included
    dbt_views.refresh(vs, new_run(conn))
    assert context_rows(conn) == before_context and signal_rows(conn) == before_signals

    # ann and ben change; only ann is touched: ben keeps his row byte for byte until a full refresh
    inferred(conn, "ann", "Ann leads the kitchen", tier="contextual")
    inferred(conn, "ben", "Ben leads the bakery", tier="contextual")
    for signal_id in conn.execute(
        "select signal_id from signals.signals where user_id = 'cat' and origin = 'inferred'"
    ).fetchall():
        conn.execute("update signals.signals set status = 'deleted' where signal_id = %s", signal_id)
    cat_manual = conn.execute(
        "select signal_id from signals.signals where user_id = 'cat' and origin = 'manual'"
    )
    conn.execute("select signals.delete_signal('cat', %s)", cat_manual.fetchone())

    result = dbt_views.refresh(vs, new_run(conn, "ann", "cat"))
    assert not result.full
    after = context_rows(conn)
    assert "Ann leads the kitchen" in after["ann"][1] and after["ann"][7] > before_context["ann"][7]
    assert after["ben"] == before_context["ben"]
    assert signal_rows(conn, "ben") == [r for r in before_signals if r[0] == "ben"]
    # cat was touched and has no active signal left: both views lost her rows
    assert "cat" not in after and signal_rows(conn, "cat") == []

    # a run id with no touched users and a full refresh: ben catches up
    full = dbt_views.refresh(vs, new_run(conn), full=True)
    assert full.full
    assert "Ben leads the bakery" in markdown(conn, "ben")
    assert set(context_rows(conn)) == {"ann", "ben"}


def _broken_project(vs: Settings, tmp_path: Path, edit) -> Settings:
    """A copy of the project whose dbt/ is edited by `edit`; prompts/ is the real one."""
    root = tmp_path / "project"
    root.mkdir(parents=True)
    (root / "prompts").symlink_to(vs.database.project_dir / "prompts")
    shutil.copytree(
        vs.database.project_dir / "dbt", root / "dbt", ignore=shutil.ignore_patterns("target", "logs")
    )
    edit(root / "dbt")
    return vs.replace(project_dir=root, data_dir=tmp_path / "data")


def test_a_failing_build_raises_and_keeps_the_previous_views(conn, vs, tmp_path):
    inferred(conn, "dee", "Works as a welder")
    dbt_views.refresh(vs)
    before_context, before_signals = context_rows(conn), signal_rows(conn)
    inferred(conn, "dee", "Welds ship hulls", tier="contextual")
    run_id = new_run(conn, "dee")

    def break_user_context(dbt: Path) -> None:
        model = dbt / "models" / "context" / "user_context.sql"
        model.write_text(
            model.read_text().replace(
                "now() as refreshed_at", "now() + (1 / 0) * interval '1 s' as refreshed_at"
            )
        )

    broken = _broken_project(vs, tmp_path / "model", break_user_context)
    for full in (False, True):  # an incremental merge and a full rebuild (temp relation + rename)
        with pytest.raises(dbt_views.ViewRefreshFailed) as caught:
            dbt_views.refresh(broken, run_id, full=full)
        assert isinstance(caught.value, AgentSignalsError)
        assert "user_context" in caught.value.message and "division by zero" in caught.value.message
        assert caught.value.hint and "previous views" in caught.value.hint
        assert context_rows(conn) == before_context

    def add_failing_test(dbt: Path) -> None:
        (dbt / "tests" / "singular" / "no_welders.sql").write_text(
            "select * from {{ ref('user_signals') }} where content like '%welder%'\n"
        )

    failing_test = _broken_project(vs, tmp_path / "test", add_failing_test)
    before_signals = signal_rows(conn)  # the broken full build above rebuilt user_signals before failing
    with pytest.raises(dbt_views.ViewRefreshFailed, match="no_welders"):
        dbt_views.refresh(failing_test, run_id)
    # user_context is downstream of the failed test: it was skipped and still holds the previous block
    assert context_rows(conn) == before_context
    # a run's refresh is one transaction: user_signals, rebuilt before its test failed, is rolled back too
    assert signal_rows(conn) == before_signals

    dbt_views.refresh(vs, run_id)  # the fixed project catches up
    assert "Welds ship hulls" in markdown(conn, "dee")


def test_analyst_models_and_docs(conn, vs):
    started = NOW - timedelta(minutes=10)
    conn.execute(
        """insert into ops.runs (run_id, kind, status, started_at, finished_at, users, llm_calls, prompt_tokens,
                                 completion_tokens, embedding_tokens, cost_usd, failures, refresh_s)
           values (%s, 'scheduled', 'succeeded', %s, %s, 4, 6, 1000, 200, 50, 0.02, 1, 0.9),
                  (%s, 'manual', 'running', %s, null, 0, 0, 0, 0, 0, 0, 0, null)""",
        [uuid.uuid4(), started, started + timedelta(seconds=90), uuid.uuid4(), NOW],
    )
    kept = manual(conn, "eve", "Prefers email")
    gone = manual(conn, "eve", "Prefers phone calls")
    conn.execute("select signals.delete_signal('eve', %s)", [gone])
    conn.execute(
        "insert into signals.events (signal_id, user_id, action, actor) values (%s, 'eve', 'archive', 'pipeline')",
        [kept],
    )
    inferred(conn, "fay", "Works as a pilot", kind="role")
    inferred(conn, "fay", "Flies on Mondays", kind="preference", tier="contextual")

    result = dbt_views.refresh(vs, full=True)  # the analyst tests run on full builds
    assert result.tests > 30

    runs = conn.execute(
        "select kind, status, duration_s, users, cost_usd, cost_per_user, refresh_s, embedding_tokens"
        " from analytics.run_costs order by started_at"
    ).fetchall()
    assert runs[0][:4] == ("scheduled", "succeeded", 90.0, 4)
    assert float(runs[0][4]) == 0.02 and float(runs[0][5]) == 0.005 and runs[0][6:] == (0.9, 50)
    assert runs[1][2] is None and runs[1][5] is None  # still running, no users: no duration, no cost per user

    churn = conn.execute(
        "select creates, deletes, archives, user_events, events, last_event_at is not null"
        " from analytics.signal_churn where user_id = 'eve'"
    ).fetchone()
    assert churn == (2, 1, 1, 3, 4, True)

    daily = conn.execute(
        "select kind, tier, origin, signals_created, still_active from analytics.signals_by_kind_daily"
        " order by kind, tier, origin"
    ).fetchall()
    assert daily == [
        ("preference", "contextual", "inferred", 1, 1),
        ("preference", "core", "manual", 2, 1),
        ("role", "core", "inferred", 1, 1),
    ]

    target = dbt_views.docs(vs)
    assert (target / "index.html").is_file()
    catalog = (target / "catalog.json").read_text()
    assert "model.agent_signals.user_context" in catalog and "context_markdown" in catalog


def test_a_runs_refresh_executes_the_compiled_plan_without_dbt(conn, vs, tmp_path, monkeypatch):
    inferred(conn, "eve", "Works as a potter")
    dbt_views.refresh(vs)  # the views exist: from now on a run's refresh uses the compiled plan
    plan = dbt_views.refresh_plan(vs)
    assert [m.name for m in plan.models] == ["user_signals", "agent_context", "user_context"]
    assert {"user_context_counts_match_user_signals", "user_signals_keep_every_manual_signal"} <= {
        t.name for t in plan.tests
    }
    assert all("agent_signals.refresh_users" in m.sql for m in plan.models)
    assert f"rank <= {limits.CORE_CAP}" in plan.models[0].sql  # var core_cap, passed from limits.py
    assert (dbt_views.dbt_dir(vs) / "refresh-plans" / f"{plan.key}.json").is_file()

    def no_dbt(*_args, **_kwargs):
        raise AssertionError("dbt started during a run's refresh")

    monkeypatch.setattr(dbt_views, "_invoke", no_dbt)
    inferred(conn, "eve", "Throws stoneware bowls", tier="contextual")
    result = dbt_views.refresh(vs, new_run(conn, "eve"))
    assert not result.full and result.tests == len(plan.tests)
    assert "Throws stoneware bowls" in markdown(conn, "eve")

    # an edited project is a new plan (compiled again, here refused because dbt is not allowed)
    edited = _broken_project(vs, tmp_path, lambda dbt: (dbt / "models" / "note.md").write_text("x\n"))
    assert dbt_views.plan_key(edited) != plan.key
    with pytest.raises(AssertionError, match="dbt started"):
        dbt_views.refresh(edited, new_run(conn, "eve"))


# A trigger standing in for any row of one user the views refuse (a model's cast, a constraint): ben's.
REFUSE_BEN = """
create function public.refuse_ben() returns trigger language plpgsql as $$
begin
    if new.user_id = 'ben' then raise exception 'view row refused for the test: %', new.user_id; end if;
    return new;
end $$;
create trigger refuse_ben before insert on context.user_context for each row execute function public.refuse_ben();
"""


def test_one_users_failing_view_rows_leave_the_others_refreshed(conn, vs):
    for user_id in ("ann", "ben", "cat"):
        inferred(conn, user_id, f"{user_id} works as a chef")
    dbt_views.refresh(vs, new_run(conn, "ann", "ben", "cat"))
    before = context_rows(conn)
    for user_id in ("ann", "ben", "cat"):
        inferred(conn, user_id, f"{user_id} bakes bread", tier="contextual")
    conn.execute(REFUSE_BEN)

    result = dbt_views.refresh(vs, new_run(conn, "ann", "ben", "cat"))
    assert list(result.failed) == ["ben"] and "view row refused for the test: ben" in result.failed["ben"]
    after = context_rows(conn)
    assert after["ben"] == before["ben"]  # his rows as they were, and theirs refreshed
    assert all(f"{user_id} bakes bread" in after[user_id][1] for user_id in ("ann", "cat"))


def test_a_first_build_waits_for_another_one_and_refreshes_on_the_views_it_made(conn, vs):
    """Two runs that both find no views: the second waits for the first's build (an advisory lock) and
    refreshes its users on the views built, instead of starting the same build (which failed one of them on
    `relation ... already exists`)."""
    from concurrent.futures import ThreadPoolExecutor

    from agent_signals.store.sqlfiles import query

    inferred(conn, "ann", "Works as a chef")
    waiting = """select count(*) from pg_locks
                 where locktype = 'advisory' and not granted
                   and database = (select oid from pg_database where datname = current_database())"""
    with ThreadPoolExecutor(1) as pool:
        with psycopg.connect(conn.info.dsn, autocommit=True) as other:
            other.execute(query("dbt_views/lock_view_build"))  # another run's first build has begun
            second = pool.submit(dbt_views.refresh, vs, new_run(conn, "ann"))
            deadline = time.monotonic() + 120  # a liveness bound, not a speed figure
            while conn.execute(waiting).fetchone()[0] == 0:
                assert not second.done(), "the second run built the views without waiting for the first"
                assert time.monotonic() < deadline
                time.sleep(0.05)
            dbt_views._build(vs, None, False)  # the first run's build, under its lock
        result = second.result(timeout=300)  # the first run's connection closed: its lock is free
    assert not result.full and result.failed == {}
    assert "Works as a chef" in markdown(conn, "ann")
