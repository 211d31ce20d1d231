"""`agent-signals batches` (provider batch mode, docs/batch.md): `list` shows the batches not collected, with
their age and a mark past AGENT_SIGNALS_BATCH_WARN_AGE_S; `cancel` refuses in one line a key it does not
know and a batch the provider has finished or never had, and asks the provider to cancel the others (that
test needs adapters/provider_batches.py, and is skipped until it is there). Ledger rows are written with SQL into a
migrated database; the provider is tests/batch_server.py."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import uuid

import pytest
from click.testing import CliRunner

from agent_signals.cli import cli
from agent_signals.errors import AgentSignalsError
from tests.test_cli import agent_signals

pytestmark = pytest.mark.db

ADAPTER = importlib.util.find_spec("agent_signals.adapters.provider_batches") is not None
MODEL = "openai/gpt-4o-mini"


def run_row(conn, status: str = "succeeded") -> uuid.UUID:
    run_id = uuid.uuid4()
    conn.execute("insert into ops.runs (run_id, kind, status) values (%s, 'scheduled', %s)", [run_id, status])
    return run_id


def batch_row(conn, run_id, status: str, *, provider_id: str | None = None, provider_status: str | None = None,
              age_h: float = 1.0, users: tuple[str, ...] = (), waiting: bool = True) -> uuid.UUID:  # fmt: skip
    """A batch of the ledger, sent `age_h` hours ago (never sent when it is `preparing`), with one request per
    user (waiting, or closed as applied)."""
    key = uuid.uuid4()
    sent = None if status == "preparing" else f"now() - interval '{age_h} hours'"
    conn.execute(
        f"""insert into ops.batches (batch_key, provider_batch_id, run_id, purpose, model, prompt_version, status,
                                     provider_status, requests, created_at, submitted_at)
            values (%s, %s, %s, 'extract', %s, 'extract/v1-test', %s, %s, %s,
                    now() - interval '{age_h} hours', {sent or "null"})""",
        [key, provider_id, run_id, MODEL, status, provider_status, len(users)],
    )
    for i, user in enumerate(users):
        conn.execute(
            """insert into ops.batch_requests (batch_key, custom_id, user_id, purpose, call_index, calls, messages,
                                               signals, max_tokens, status)
               values (%s, %s, %s, 'extract', 0, 1, '[]', '[]', 1024, %s)""",
            [key, f"r{i}", user, "waiting" if waiting else "applied"],
        )
    return key


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def listed(*extra: str) -> str:
    result = invoke("batches", "list", *extra)
    assert result.exit_code == 0, result.output
    return result.output


def test_list_shows_the_batches_not_collected_with_their_age_and_marks_the_old_ones(database_url, conn):
    run_id = run_row(conn)
    old = batch_row(conn, run_id, "submitted", provider_id="batch_old", provider_status="in_progress",
                    age_h=30, users=("ann", "bob"))  # fmt: skip
    recent = batch_row(conn, run_id, "submitted", provider_id="batch_new", provider_status="validating",
                       age_h=2, users=("cid",))  # fmt: skip
    ended = batch_row(conn, run_id, "ended", provider_id="batch_done", provider_status="completed", age_h=40,
                      users=("dan",))  # fmt: skip
    batch_row(conn, run_id, "collected", provider_id="batch_gone", provider_status="completed", age_h=50,
              users=("eve",), waiting=False)  # fmt: skip
    batch_row(conn, run_id, "abandoned", age_h=3, users=("fay",), waiting=False)

    table = listed().splitlines()
    assert table[0].split()[:3] == ["batch", "provider", "id"]
    rows = {line.split()[0]: line for line in table[1:4]}
    assert list(rows) == [str(ended), str(old), str(recent)]  # oldest first; collected and abandoned left out
    assert rows[str(old)].split()[1:] == ["batch_old", "submitted", "in_progress", MODEL, "2", "2", "30.00",
                                          "too", "old"]  # fmt: skip
    assert rows[str(recent)].split()[1:] == ["batch_new", "submitted", "validating", MODEL, "1", "1", "2.00"]
    assert rows[str(ended)].split()[-1] == "40.00"  # ended: only waits for the next run, never too old
    assert table[4].startswith("1 batch(es) out longer than AGENT_SIGNALS_BATCH_WARN_AGE_S (26 h)")

    as_json = json.loads(listed("--json"))
    assert [(b["batch_key"], b["status"], b["users_waiting"], b["too_old"]) for b in as_json] == [
        (str(ended), "ended", 1, False), (str(old), "submitted", 2, True), (str(recent), "submitted", 1, False),
    ]  # fmt: skip
    assert as_json[1]["age_h"] == 30.0 and as_json[1]["provider_batch_id"] == "batch_old"


def test_the_warning_age_is_the_setting(database_url, conn, monkeypatch):
    batch_row(conn, run_row(conn), "submitted", provider_id="batch_1", provider_status="in_progress", age_h=2)
    assert "too old" not in listed()
    monkeypatch.setenv("AGENT_SIGNALS_BATCH_WARN_AGE_S", "3600")
    assert "2.00  too old" in listed()


def test_the_run_report_shows_the_same_batches_in_flight(database_url, conn, settings):
    from agent_signals.store.ledger.report import batches_section

    assert batches_section(conn, settings) == []
    run_id = run_row(conn)
    old = batch_row(conn, run_id, "submitted", provider_id="batch_old", provider_status="in_progress", age_h=30,
                    users=("ann", "bob"))  # fmt: skip
    ended = batch_row(conn, run_id, "ended", provider_id="batch_done", provider_status="completed", age_h=40)
    lines = batches_section(conn, settings)
    assert lines[1] == "## Batches in flight (2)"
    assert lines[-2:] == [
        f"| {ended} | batch_done | ended | completed | 0 | 0 | 40.00 |",
        f"| {old} | batch_old | submitted | in_progress | 2 | 2 | 30.00 **too old** |",
    ]


def test_list_with_no_batch_out(database_url):
    assert listed() == "no batch is out\n"
    assert json.loads(listed("--json")) == []


def test_cancel_of_an_unknown_batch_is_one_line(database_url):
    result = agent_signals("batches", "cancel", "no-such-batch")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "error: no batch no-such-batch in ops.batches",
        "hint: `agent-signals batches list` shows the batches not collected yet",
    ]


def refused(*args: str) -> AgentSignalsError:
    result = invoke("batches", "cancel", *args)
    assert isinstance(result.exception, AgentSignalsError), result.output
    return result.exception


def test_cancel_refuses_a_batch_the_provider_finished_or_never_had(database_url, conn):
    run_id = run_row(conn)
    ended = batch_row(conn, run_id, "ended", provider_id="batch_done", provider_status="expired")
    error = refused(str(ended))
    assert error.message == f"batch {ended} has already ended (ended, the provider said expired): there is nothing to cancel"  # fmt: skip
    assert error.hint == "the next run applies what it answered and gives its other users back to pending"
    assert refused("batch_done").message == error.message  # named by the provider's id too

    collected = batch_row(conn, run_id, "collected", provider_id="batch_gone", provider_status="completed")
    assert refused(str(collected).upper()).message.startswith(
        f"batch {collected} has already ended (collected"
    )

    never_sent = batch_row(conn, run_id, "preparing")
    error = refused(str(never_sent))
    assert error.message.startswith(f"batch {never_sent} was never sent to the provider (status preparing)")
    assert error.hint.startswith("the next run finds it at the provider by its key")
    being_sent = batch_row(conn, run_row(conn, "running"), "preparing")
    assert refused(str(being_sent)).hint == "the run preparing it sends it in a moment: cancel it then"

    asked = batch_row(conn, run_id, "submitted", provider_id="batch_x", provider_status="cancelling")
    assert refused(str(asked)).message == (
        f"batch {asked} is being cancelled already (the provider said cancelling)"
    )
    assert conn.execute("select count(*) from ops.batches where status = 'submitted'").fetchone()[0] == 1


def test_a_refused_cancel_prints_one_line_not_a_traceback(database_url, conn):
    ended = batch_row(conn, run_row(conn), "ended", provider_id="batch_done", provider_status="completed")
    result = agent_signals("batches", "cancel", str(ended))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0].startswith(f"error: batch {ended} has already ended")


@pytest.mark.skipif(not ADAPTER, reason="adapter not merged yet")
def test_cancel_asks_the_provider_with_the_batchs_own_model(database_url, conn, monkeypatch):
    import litellm

    from tests.batch_server import serving
    from tests.http_model import chat

    async def create(url: str) -> str:
        provider = {"custom_llm_provider": "openai", "api_base": url, "api_key": "sk-test"}
        line = {"custom_id": "r0", "method": "POST", "url": "/v1/chat/completions",
                "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}}  # fmt: skip
        uploaded = await litellm.acreate_file(file=("r.jsonl", (json.dumps(line) + "\n").encode()), purpose="batch",
                                              **provider)  # fmt: skip
        batch = await litellm.acreate_batch(completion_window="24h", endpoint="/v1/chat/completions",
                                            input_file_id=uploaded.id, **provider)  # fmt: skip
        return batch.id

    with serving(lambda body: chat("{}")) as server:
        provider_id = asyncio.run(create(server.url))
        key = batch_row(conn, run_row(conn), "submitted", provider_id=provider_id, provider_status="in_progress",
                        users=("ann",))  # fmt: skip
        # the configured model is not the batch's: the batch is reached with the one it was sent with
        monkeypatch.setenv("AGENT_SIGNALS_MODEL", "offline/rules")
        monkeypatch.setenv("AGENT_SIGNALS_API_BASE", server.url)
        monkeypatch.setenv("AGENT_SIGNALS_API_KEY", "sk-test")
        result = invoke("batches", "cancel", str(key))
        assert result.exit_code == 0, result.output
        assert server.batches[provider_id]["status"] == "cancelled"
        assert ("POST", f"/v1/batches/{provider_id}/cancel") in server.requests
    assert result.output.startswith(
        f"asked the provider to cancel batch {key} ({provider_id}): it says cancelled."
    )
    # the ledger waits for the next run to record how it ended and to give its users back
    assert conn.execute(
        "select status, provider_status from ops.batches where batch_key = %s", [key]
    ).fetchone() == ("submitted", "cancelled")
    assert conn.execute("select status from ops.batch_requests").fetchall() == [("waiting",)]
    assert refused(str(key)).message.startswith(f"batch {key} is being cancelled already")
