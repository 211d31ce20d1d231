"""The command line: errors are one line, not tracebacks (its help texts and documentation: test_docs.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "agent_signals"]


def agent_signals(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.unit
def test_a_wrong_argument_is_one_line_not_a_traceback():
    result = agent_signals("run", "--bogus")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: No such option '--bogus'. (see `agent-signals run --help`)"
    ]


@pytest.mark.db
def test_a_bad_file_is_refused_with_its_path_and_a_hint(database_url, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"conversations": [{"conversation_id": "c", "user_id": "u", "extract": true, '
        '"messages": [{"role": "robot", "content": "x", "created_at": "2026-01-01T00:00:00Z"}]}]}'
    )
    result = agent_signals("load", str(bad))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"error: {bad}: conversations[0].messages[0].role: Input should be 'user', 'assistant', 'tool' or 'system'",
        "hint: nothing was loaded",
    ]


@pytest.mark.db
def test_an_unknown_user_is_a_clear_error(database_url):
    result = agent_signals("signals", "list", "--user", "nobody")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == "error: no conversations or signals for user 'nobody'"


@pytest.mark.db
def test_a_wrong_database_url_is_a_clear_error():
    result = agent_signals("db", "migrate", env={"DATABASE_URL": "postgresql://x:pw@127.0.0.1:1/db"})
    assert result.returncode == 1
    assert result.stderr.startswith(
        "error: cannot connect to PostgreSQL at postgresql://x:***@127.0.0.1:1/db"
    )
    assert "Traceback" not in result.stderr and "pw" not in result.stderr


@pytest.mark.db
def test_db_url_prints_the_configured_url(database_url):
    assert agent_signals("db", "url").stdout.strip() == database_url


@pytest.mark.db
def test_db_url_of_the_embedded_server_is_accepted_by_psql():
    if os.environ.get("DATABASE_URL"):
        pytest.skip("DATABASE_URL is set: there is no embedded server")
    url = agent_signals("db", "url").stdout.strip()
    assert url.startswith("postgresql://postgres@/agent_signals?host=/")
    psql = Path(find_spec("pgserver").origin).parent / "pginstall" / "bin" / "psql"  # pgserver's (the docs')
    out = subprocess.run(
        [psql, url, "-Atc", "select current_database()"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stdout.strip() == "agent_signals"


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_api")
def test_the_quickstart_demo_ends_with_signals_and_a_printed_summary(database_url, conn):
    result = agent_signals("demo", "--users", "12")
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(r"run [0-9a-f-]{36} \(manual\): succeeded", result.stdout)
    assert re.search(
        r"llm calls \d+ \(extract 13(, summarize \d+)?\),", result.stdout
    )  # and the showcase user
    assert "Signals of u0000" in result.stdout and "evidence " in result.stdout
    assert conn.execute("select count(*) from signals.signals where origin = 'inferred'").fetchone()[0] > 0
    sample = re.search(r"Signals of (u\d+)", result.stdout)[1]
    block = agent_signals("context", sample)
    assert block.returncode == 0 and block.stdout.startswith("## About this user\n### Core identity\n- ")
    unknown = agent_signals("context", "nobody")
    assert unknown.returncode == 1 and "no conversations or signals for user 'nobody'" in unknown.stderr
    again = agent_signals("demo", "--users", "12")  # re-running the demo is safe and calls nothing
    assert again.returncode == 0 and "llm calls 0," in again.stdout


@pytest.mark.db
@pytest.mark.slow
def test_a_users_own_signals_from_the_command_line(database_url, conn):
    added = agent_signals("signals", "add", "--user", "zoe", "--kind", "writing", "Prefers British spelling")
    assert added.returncode == 0, added.stderr
    signal_id = re.search(r"added ([0-9a-f-]{36})", added.stdout)[1]
    assert conn.execute("select embedding is not null from signals.signals").fetchone()[0]

    listed = agent_signals("signals", "list", "--user", "zoe")
    assert f"{signal_id[:8]}  manual/writing" in listed.stdout

    edited = agent_signals(
        "signals", "edit", "--user", "zoe", signal_id[:8], "Prefers British spelling, always"
    )
    assert edited.returncode == 0, edited.stderr
    found = agent_signals("signals", "search", "british spelling", "--user", "zoe")
    assert "manual/writing  Prefers British spelling, always" in found.stdout

    assert agent_signals("signals", "delete", "--user", "zoe", signal_id).returncode == 0
    assert conn.execute("select status from signals.signals").fetchone()[0] == "deleted"


@pytest.mark.db
@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("signals", "add", "--user", "zoe", "--kind", "mood", "Happy"), 2, "'mood' is not one of"),
        (("signals", "delete", "--user", "zoe", "0000"), 1, "error: user 'zoe' has no signal '0000'"),
        (("signals", "undo", "987654"), 1, "error: there is no event 987654"),
        (("signals", "add", "--user", "zoe", "--kind", "role", "   "), 1, "between 1 and 300 characters"),
    ],
)
def test_signal_commands_fail_in_one_line(database_url, args, code, message):
    result = agent_signals(*args)
    assert result.returncode == code
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.db
@pytest.mark.slow
def test_a_signal_is_named_by_its_id_never_by_a_pattern(database_url, conn, settings):
    """`signals delete --user ghost "____"` once deleted the user's only signal: the id was a LIKE pattern."""
    from agent_signals.stages.by_hand import own_signals

    signal_id = str(own_signals.add_signal(conn, settings, "ghost", "Prefers British spelling", "writing"))
    for ref in ("____", "%", "abcd%", signal_id[:4] + "_", "abc", f"{signal_id[:6]}-"):
        result = agent_signals("signals", "delete", "--user", "ghost", ref)
        assert result.returncode == 1, (ref, result.stdout)
        assert result.stderr.splitlines() == [
            f"error: {ref!r} is not a signal id or the start of one",
            "hint: give at least 4 characters of an id (hex digits and dashes) as "
            "`agent-signals signals list --user ghost --all` prints them",
        ], ref
    other = "ffff" if not signal_id.startswith("ffff") else "0000"
    missing = agent_signals("signals", "delete", "--user", "ghost", other)
    assert missing.returncode == 1 and f"error: user 'ghost' has no signal '{other}'" in missing.stderr
    edited = agent_signals("signals", "edit", "--user", "ghost", "____", "Prefers American spelling")
    assert edited.returncode == 1 and "error: '____' is not a signal id" in edited.stderr
    assert conn.execute("select content, status from signals.signals").fetchall() == [
        ("Prefers British spelling", "active")
    ]
    upper = agent_signals(
        "signals", "delete", "--user", "ghost", signal_id[:13].upper()
    )  # as printed, any case
    assert upper.returncode == 0, upper.stderr
    assert conn.execute("select status from signals.signals").fetchone()[0] == "deleted"


@pytest.mark.db
def test_load_from_the_command_line_persists_and_reloading_changes_nothing(database_url, conn, tmp_path):
    good = tmp_path / "good.json"
    good.write_text(
        '{"conversations": [{"conversation_id": "c1", "user_id": "u1", "extract": true, "messages": ['
        '{"role": "user", "content": "I am a data engineer.", "created_at": "2026-03-02T09:00:00Z"}]}]}'
    )
    first = agent_signals("load", str(good))
    assert first.returncode == 0 and "1 new conversation(s)" in first.stdout, first.stderr
    assert conn.execute("select count(*) from source.messages").fetchone()[0] == 1
    again = agent_signals("load", str(good))
    assert "0 new conversation(s), 0 changed, 0 new message(s), 1 already loaded" in again.stdout


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_api")
def test_backfill_from_the_command_line(database_url, conn, settings):
    from datetime import UTC, datetime, timedelta

    from tests.builders import conversation, load_conversations

    day = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=3)
    load_conversations(conn, settings, conversation("b1", "bea", [("user", "I live in Lisbon.")], start=day))
    since, until = (
        (day - timedelta(days=1)).strftime("%Y-%m-%d"),
        (day + timedelta(days=1)).strftime("%Y-%m-%d"),
    )

    dry = agent_signals("backfill", "--since", since, "--until", until, "--dry-run")
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert "dry run, nothing written. Would change: created 1" in dry.stdout and "users 1" in dry.stderr
    assert conn.execute("select count(*) from signals.signals").fetchone()[0] == 0

    real = agent_signals("backfill", "--since", since, "--until", until, "--user", "bea", "--slice", "12h")
    assert real.returncode == 0 and re.search(r"run [0-9a-f-]{36} \(backfill\): succeeded", real.stdout)
    assert conn.execute("select content from signals.signals").fetchall() == [("Lives in Lisbon",)]

    empty = agent_signals("backfill", "--since", since, "--until", until, "--user", "nobody")
    assert empty.returncode == 1 and "error: no flagged user messages between" in empty.stderr
    bad = agent_signals("backfill", "--since", since, "--until", until, "--slice", "soon")
    assert bad.returncode == 1 and "error: slice 'soon' is not a duration" in bad.stderr
    backwards = agent_signals("backfill", "--since", until, "--until", since)
    assert backwards.returncode == 1 and "the window is empty" in backwards.stderr


@pytest.mark.db
def test_commands_on_a_database_that_was_never_migrated_fail_in_one_line(unmigrated_database):
    for args in (("signals", "undo", "987654"), ("set-aside", "list")):
        result = agent_signals(*args, env={"DATABASE_URL": unmigrated_database})
        assert result.returncode == 1, result.stderr
        assert "the database is not migrated" in result.stderr and "Traceback" not in result.stderr
        assert "hint: run `agent-signals db migrate`" in result.stderr


@pytest.mark.unit
@pytest.mark.parametrize("mode", ["json_object", None])
def test_the_run_summary_line_of_model_calls_reads_as_one_list(capsys, mode):
    from uuid import uuid4

    from agent_signals.cli.flow_runs import print_summary
    from agent_signals.store.ledger.runs import RunStats

    stats = RunStats(llm_calls=3, prompt_tokens=900, cached_prompt_tokens=512, completion_tokens=60)
    stats.llm_calls_by_purpose["extract"] = 3
    print_summary(stats.summary(uuid4(), "manual", "succeeded", answer_mode=mode), 1.0)
    line = next(line for line in capsys.readouterr().out.splitlines() if "llm calls" in line)
    answers = ", answers as json_object" if mode else ""
    assert (
        line
        == f"  llm calls 3 (extract 3){answers}, prompt tokens 900 (512 cached), completion tokens 60, cost $0.0000"
    )
