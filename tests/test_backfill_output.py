"""What a backfill prints: distinct users (not user x slice), no per-task Prefect lines, and a dry run that
says so instead of naming a run that is not in ops.runs."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta

import pytest

from agent_signals.store.ledger.runs import RunStats
from tests.builders import conversation, load_conversations
from tests.test_cli import agent_signals

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.slow
@pytest.mark.usefixtures("prefect_api")
def test_a_backfill_over_several_slices_counts_each_user_once_without_task_lines(
    database_url, conn, settings
):
    day = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=4)
    users = ["ann", "bob", "cy", "dee"]
    load_conversations(conn, settings, *(
        conversation(f"{user}-{d}", user, [("user", f"I live in Lisbon, day {d}.")], start=day + timedelta(days=d))
        for user in users for d in range(3)
    ))  # fmt: skip
    window = ("--since", day.strftime("%Y-%m-%d"), "--until", (day + timedelta(days=3)).strftime("%Y-%m-%d"))

    dry = agent_signals("backfill", *window, "--slice", "1d", "--dry-run")
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert "\ndry run (backfill, nothing written): succeeded in " in dry.stdout
    assert "  users 4, conversations 12, messages 12\n" in dry.stdout
    assert not UUID.search(dry.stdout) and not re.search(r"\brun [0-9a-f-]{36}", dry.stderr)
    assert conn.execute("select count(*) from ops.runs").fetchone() == (0,)

    real = agent_signals("backfill", *window, "--slice", "1d")
    assert real.returncode == 0, real.stderr[-2000:]
    run_id = re.search(rf"\nrun ({UUID.pattern}) \(backfill\): succeeded in ", real.stdout)[1]
    assert "  users 4, conversations 12, messages 12\n" in real.stdout
    assert any(line.startswith("users 4, messages 12/12 (100%)") for line in real.stderr.splitlines())
    assert conn.execute("select users, messages from ops.runs where run_id = %s", (run_id,)).fetchone() == (
        4,
        12,
    )
    for result in (dry, real):  # three slices, four shards: Prefect's per-task lines stay out of the terminal
        assert "Task run" not in result.stdout + result.stderr
        assert "Finished in state Completed()" in result.stderr  # the flow run's own line still shows


@pytest.mark.unit
def test_parts_of_a_run_add_up_to_distinct_users():
    run = RunStats()
    for part_users in (["a", "b"], ["b", "c"], ["a"]):  # a user in several slices or shards
        part = RunStats()
        for user_id in part_users:
            part.note_user(user_id)
        shipped = RunStats.from_aggregates(json.loads(json.dumps(part.aggregates())))  # another process
        run.merge(shipped)
    assert run.users == 3 and run.as_params()["users"] == 3 and "user_ids" not in run.as_params()


@pytest.mark.unit
def test_task_run_lines_go_to_prefects_api_and_an_environment_variable_shows_them_again(monkeypatch):
    from prefect.logging.configuration import load_logging_config

    from agent_signals.adapters.runtime import PREFECT_LOGGING_CONFIG

    assert os.environ["PREFECT_LOGGING_SETTINGS_PATH"] == str(PREFECT_LOGGING_CONFIG)  # set by apply_defaults
    config = load_logging_config(PREFECT_LOGGING_CONFIG)
    task_runs = config["loggers"]["prefect.task_runs"]
    assert task_runs["handlers"] == ["api", "task_run_console"] and task_runs["propagate"] is False
    assert config["handlers"]["task_run_console"]["level"] == "WARNING"
    monkeypatch.setenv("PREFECT_LOGGING_HANDLERS_TASK_RUN_CONSOLE_LEVEL", "INFO")  # the README's switch
    assert load_logging_config(PREFECT_LOGGING_CONFIG)["handlers"]["task_run_console"]["level"] == "INFO"
