"""Settings are a flow's parameter: runs in one process each follow the settings they are given, not the
environment; the task runner comes from those settings; the secrets among them are stored nowhere in
Prefect's API with the flow run; the deployments offer no settings (their runs read the environment of the
process that runs them)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os

import psycopg
import pytest

from agent_signals.config import OFFLINE_MODEL, Settings
from agent_signals.flows.backfill import backfill_signals
from agent_signals.flows.extract import extract_signals
from agent_signals.flows.runners import task_runner
from agent_signals.flows.shard import process_shard_run
from tests.builders import conversation, load_conversations
from tests.fakes import SCRIPTED_MODEL

SECRETS = (("database", "url"), ("model", "api_key"), ("model", "extra_headers"))


def secrets_in(dumped: dict) -> set[tuple[str, str]]:
    """The secrets' places present in a dump of Settings (a group's dict of fields)."""
    return {(group, field) for group, field in SECRETS if field in dumped.get(group, {})}


def project_environment() -> dict[str, str]:
    """The variables the project's settings are read from (libraries imported later add their own)."""
    return {k: v for k, v in os.environ.items() if k.startswith("AGENT_SIGNALS_") or k == "DATABASE_URL"}


@pytest.mark.unit
def test_settings_leave_their_secrets_out_of_every_serialised_form():
    settings = Settings(
        database_url="postgresql://ann:pw-in-url@db.example/prod",
        api_key="sk-never-shown",
        extra_headers={"X-Team-Token": "header-never-shown"},
    )
    for text in (settings.model_dump_json(), json.dumps(settings.model_dump(mode="json")), repr(settings)):
        assert not any(s in text for s in ("pw-in-url", "sk-never-shown", "header-never-shown")), text
    assert not secrets_in(settings.model_dump()) and set(settings.model_dump()) >= {"database", "model"}
    # still there for the code that uses them
    assert settings.database.url == "postgresql://ann:pw-in-url@db.example/prod"
    assert settings.model.api_key.get_secret_value() == "sk-never-shown"
    assert settings.model.extra_headers == {"X-Team-Token": "header-never-shown"}


@pytest.mark.unit
def test_the_task_runner_comes_from_the_settings_passed():
    from prefect_dask import DaskTaskRunner

    assert task_runner(Settings(runner="local")) is None  # the shards run in the flow's process
    dask = task_runner(Settings(runner="dask", dask_address="tcp://127.0.0.1:8786"))
    assert isinstance(dask, DaskTaskRunner) and dask.address == "tcp://127.0.0.1:8786"
    local = task_runner(Settings(runner="dask", dask_workers=3))
    assert local.address is None and local.cluster_kwargs["n_workers"] == 3
    # the flows' own task runner is Prefect's default, whatever the environment said at import
    assert not isinstance(extract_signals.task_runner, DaskTaskRunner)
    assert not isinstance(backfill_signals.task_runner, DaskTaskRunner)


@pytest.mark.unit
def test_every_flow_takes_settings_and_the_deployments_offer_none():
    from prefect.utilities.callables import parameter_schema

    for flow in (extract_signals, backfill_signals, process_shard_run):
        assert inspect.signature(flow.fn).parameters["settings"].default is None
        assert "settings" not in parameter_schema(flow).properties  # no settings form in Prefect's UI
    for flow in (extract_signals, backfill_signals):
        assert "listeners" not in parameter_schema(flow).properties  # callbacks of the caller's process


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_two_runs_in_one_process_each_follow_their_own_settings(new_database, settings_with, scripted):
    """Two runs at once in one event loop: one on the scripted model, the other on the offline model (the
    environment's default); each database holds what its own model said, and the environment is untouched."""
    environment = project_environment()
    scripted.script = lambda _prompt: json.dumps({"actions": [
        {"action": "create", "content": "Flies planes for a living", "tier": "core", "kind": "role",
         "evidence": [{"message": "m1", "quote": "I'm a pilot"}]},
    ]})  # fmt: skip
    on_script, offline = settings_with(), settings_with(database_url=new_database(), model=OFFLINE_MODEL)
    assert on_script.model.name == SCRIPTED_MODEL != Settings().model.name  # not the environment's model
    for settings in (on_script, offline):
        with psycopg.connect(settings.database.url, autocommit=True) as conn:
            load_conversations(conn, settings, conversation("p1", "pia", [("user", "I'm a pilot.")]))

    async def both() -> list[dict]:
        return await asyncio.gather(
            extract_signals(kind="manual", settings=on_script),
            extract_signals(kind="manual", settings=offline),
        )

    summaries = asyncio.run(both())
    assert [s["status"] for s in summaries] == ["succeeded", "succeeded"]
    assert len(scripted.extraction_calls) == 1  # the offline run never called the scripted model
    stored = {}
    for settings in (on_script, offline):
        with psycopg.connect(settings.database.url, autocommit=True) as conn:
            (model,) = conn.execute("select model from ops.runs").fetchone()
            contents = [c for (c,) in conn.execute("select content from signals.signals order by content")]
        stored[model] = contents
    assert stored[SCRIPTED_MODEL] == ["Flies planes for a living"]
    assert stored[OFFLINE_MODEL] and "Flies planes for a living" not in stored[OFFLINE_MODEL]
    assert project_environment() == environment


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_the_secrets_of_a_runs_settings_are_not_stored_with_its_flow_run(conn, settings_with, scripted):
    from prefect.client.orchestration import get_client

    settings = settings_with(api_key="sk-do-not-store", extra_headers={"X-Team-Token": "hdr-do-not-store"})
    load_conversations(conn, settings, conversation("s1", "sam", [("user", "I'm a pilot.")]))
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["status"] == "succeeded"
    (flow_run_id,) = conn.execute(
        "select flow_run_id from ops.runs where run_id = %s", [summary["run_id"]]
    ).fetchone()

    async def read_flow_run():
        async with get_client() as client:
            return await client.read_flow_run(flow_run_id)

    parameters = asyncio.run(read_flow_run()).parameters
    assert parameters["kind"] == "manual" and parameters["settings"]["model"]["name"] == SCRIPTED_MODEL
    assert not secrets_in(parameters["settings"])
    stored = json.dumps(parameters)
    for secret in (settings.database.url, "sk-do-not-store", "hdr-do-not-store", "X-Team-Token"):
        assert secret not in stored
