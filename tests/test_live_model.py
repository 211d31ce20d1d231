"""The pipeline end to end on a real local model: Gemma 3 270M served by llama.cpp (tests/llama_server.py),
reached through litellm's `openai/` provider over HTTP, as a deployment reaches its model. A 270M model's
answers are poor; what is asserted holds for ANY answer it gives: every answer is either applied or rejected
and recorded, nothing invalid is written, and the run's status says what happened.

Run with `make test-live` (skipped without --live: `make test` and CI never build or start llama.cpp). The
users are the first sessions of real conversations (msc-valid, --live-data) when that file is present, else
the demo's seed. Between litellm and llama.cpp sits tests/http_model.py's server forwarding every request, so
that the test sees each answer the pipeline received."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.answers import InvalidAnswer, parse_extract_actions
from agent_signals.core.prompting.prompts import is_extract_prompt
from agent_signals.limits import CONTENT_MAX_CHARS
from agent_signals.store.loading.load import ConversationsFile, store
from tests import http_model, llama_server
from tests.builders import uncited_evidence

pytestmark = [pytest.mark.live, pytest.mark.db, pytest.mark.flow]

USERS = 6
# AGENT_SIGNALS_STRUCTURED_ANSWERS: JSON mode without a schema (`auto`'s choice for this model: a 270M model
# rarely answers the schema that way), or JSON mode carrying the slim answer schema (llama.cpp's constrained
# decoding: answers in the schema's shape, whose actions validation then judges)
MODES = ["json_object", "json_object_schema"]
# each proposal of an answer ends as exactly one of these (apply.py's counts) or as a row of ops.rejected_actions
APPLIED = (
    "created",
    "updated",
    "reinforced",
    "unchanged",
    "skipped_manual",
    "skipped_tombstone",
    "quarantined",
)


@pytest.fixture(scope="session")
def gemma(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """llama.cpp's server on the model file for the whole session; yields its API base."""
    model = Path(request.config.getoption("--live-model"))
    if not model.is_file():
        pytest.fail(f"{model}: no model file (`make test-live` assembles it)")
    with llama_server.serve(model, tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


def seed(conn: psycopg.Connection, settings: Settings, data: Path) -> list[str]:
    """USERS users with new messages: the first session of the first users of msc-valid (moved in time to end
    yesterday, so that decay keeps what is learned), else the demo's seed. Returns their ids."""
    if not data.is_file():
        from agent_signals.cli.demo import seeding

        seeding.seed(conn, users=USERS, messages_per_user=6)
        return [row[0] for row in conn.execute("select distinct user_id from app.conversations order by 1")]
    raw = json.loads(data.read_text())
    users = [u["user_id"] for u in raw["users"][:USERS]]
    first = [
        c for c in raw["conversations"] if c["user_id"] in users and c["conversation_id"].endswith("_s1")
    ]
    stamps = [datetime.fromisoformat(m["created_at"]) for c in first for m in c["messages"]]
    shift = datetime.now(UTC) - timedelta(days=1) - max(stamps)
    for conversation in first:
        for message in conversation["messages"]:
            message["created_at"] = (datetime.fromisoformat(message["created_at"]) + shift).isoformat()
    store(conn, ConversationsFile.model_validate({"conversations": first}))
    return users


def proposed(answers: list[str]) -> int:
    """Create and update actions in the answers the pipeline could read (an answer it cannot read is a
    failure of its user: none of its actions is judged)."""
    count = 0
    for text in answers:
        try:
            parsed = parse_extract_actions(text)
        except InvalidAnswer:
            continue
        count += sum(1 for a in parsed.actions if a.action is None or a.action.action != "skip")
    return count


@pytest.mark.parametrize("mode", MODES)
def test_every_answer_of_a_real_model_is_applied_or_recorded_and_nothing_invalid_is_written(
    mode, conn, settings, settings_with, gemma, prefect_harness, request
):
    from agent_signals.flows.extract import extract_signals

    users = seed(conn, settings, Path(request.config.getoption("--live-data")))
    forward = http_model.Forward(gemma)
    with http_model.serve(forward) as proxy:
        live = settings_with(
            **proxy.settings(model=f"openai/{llama_server.MODEL_NAME}", api_key="sk-local"),
            concurrency=1,  # llama.cpp answers one request at a time
            timeout_s=900,  # a liveness bound: 2 shared cores
            retry_backoff_s=0,
            structured_answers=mode,
        )
        summary = asyncio.run(extract_signals(kind="manual", settings=live))
    print(json.dumps(summary))  # the run's figures on a real model (pytest -s)

    run_id = summary["run_id"]
    extracts = [(b, s, a) for b, s, a in forward.exchanges if is_extract_prompt(b["messages"])]
    answers = [a["choices"][0]["message"]["content"] or "" for _b, s, a in extracts if s == 200]
    assert summary["users"] == len(users)  # every user tried
    assert summary["llm_calls_by_purpose"]["extract"] == len(extracts)  # every call reached the model

    # the run's status is honest: partial exactly when users failed, each failure recorded
    failed = dict(conn.execute(
        "select user_id, string_agg(stage, ',') from ops.failures where run_id = %s group by 1", [run_id]
    ).fetchall())  # fmt: skip
    status, failures = conn.execute(
        "select status, failures from ops.runs where run_id = %s", [run_id]
    ).fetchone()
    assert (
        (status, failures)
        == (summary["status"], summary["failures"])
        == ("partial" if failed else "succeeded", len(failed))
    )
    # a failure is the model's (an answer it cannot read, a fault of the server), never a write's
    assert set(failed.values()) <= {"validate", "extract"}, failed
    # small users: one extraction call each, answered unless the server failed it
    assert len(answers) == len(users) - list(failed.values()).count("extract")
    # every other user's conversations are read (watermarks of this run), a failed user's are not
    read = {
        row[0] for row in conn.execute("select user_id from signals.watermarks where run_id = %s", [run_id])
    }
    assert read == set(users) - set(failed)

    # every action of every answer read is applied or rejected and recorded
    rejected = conn.execute(
        "select count(*) from ops.rejected_actions where run_id = %s", [run_id]
    ).fetchone()[0]
    assert proposed(answers) == sum(summary["actions"].get(k, 0) for k in APPLIED) + rejected, summary

    # nothing invalid is written: kinds in the set, lengths within limits, each quote a span of a user message
    # of that user, each signal created by this run with its event
    bad = conn.execute(
        """select s.signal_id, s.kind, s.tier, s.content from signals.signals s
           where s.kind <> all(%s) or length(s.content) not between 1 and %s
              or not exists (select 1 from signals.events e where e.signal_id = s.signal_id
                             and e.action = 'create' and e.run_id = %s)
              or not exists (select 1 from signals.evidence e where e.signal_id = s.signal_id)""",
        [list(settings.run.kinds), CONTENT_MAX_CHARS, run_id],
    ).fetchall()
    assert bad == []
    assert uncited_evidence(conn) == []
    # the read path is current: every user with an active signal has a context block refreshed by this run
    stale = conn.execute(
        """select s.user_id from signals.signals s where s.status = 'active'
           except
           select c.user_id from context.user_context c, ops.runs r
           where r.run_id = %s and c.refreshed_at >= r.started_at""",
        [run_id],
    ).fetchall()
    assert stale == []
