"""Provider batch mode end to end (issue 18): real flows on PostgreSQL, the model behind a local server of
OpenAI's files, batches and chat endpoints (tests/batch_server.py) reached through litellm's real OpenAI
provider path, answering with the offline model. A run sends its users in batches; a later run applies the
answers; the final signals are those of a direct run over the same messages. Then every way a batch can go
wrong: partial answers, expiry, cancel, a crash between creating the batch and recording it, a crash while
applying, a prompt or model change while a batch is out, two runs at once."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from agent_signals.cli.demo import seeding
from agent_signals.config import Settings
from agent_signals.flows.extract import extract_signals
from tests.batch_server import BatchServer, offline, serving
from tests.http_model import error

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]

MODEL = "openai/offline-rules"
USERS = 12
FINAL = """select user_id, content, tier, kind, status, mention_count from signals.signals
           order by user_id, content"""
CONTEXT = "select user_id, context_markdown from context.user_context order by user_id"


def over(server: BatchServer, url: str, **values: object) -> Settings:
    return Settings(**{"database_url": url, "model": MODEL, "api_base": server.url, "api_key": "sk-test",
                       "max_retries": 1, "retry_backoff_s": 0, **values})  # fmt: skip


def applied_users(url: str) -> int:
    return rows(url, "select count(distinct user_id) from ops.batch_requests where status = 'applied'")[0][0]


def warnings(url: str) -> list[str]:
    """The warnings of the last run (ops.runs)."""
    return rows(url, "select warnings from ops.runs order by started_at desc limit 1")[0][0]


def run(settings: Settings, kind: str = "scheduled") -> dict:
    return asyncio.run(extract_signals(kind=kind, settings=settings))


def rows(url: str, sql: str, params: dict | None = None) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params or {}).fetchall()


def seeded(new_database, users: int = USERS) -> str:
    url = new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        seeding.seed(conn, users=users, messages_per_user=6)
    return url


def batch_ids(server: BatchServer) -> list[str]:
    return sorted(server.batches)


def test_a_batch_run_ends_with_the_signals_and_views_of_a_direct_run_over_the_same_messages(new_database):
    direct_url, batch_url = seeded(new_database), seeded(new_database)
    with serving(offline) as server:
        direct = run(over(server, direct_url))
        assert direct["status"] == "succeeded" and direct["llm_calls_by_purpose"]["extract"] == USERS
        assert not server.batches  # a direct run sends no batch

        sent = run(over(server, batch_url, batch_mode="provider"))
        assert sent["llm_calls"] == 0 and sent["batches"]["users_sent"] == USERS
        assert rows(batch_url, "select count(*) from signals.signals") == [(0,)]
        assert rows(batch_url, "select count(*) from signals.watermarks") == [(0,)]  # moved only when applied
        assert len(server.batches) == sent["batches"]["sent"] >= 1

        waiting = run(over(server, batch_url, batch_mode="provider"))  # nothing ended yet: nothing sent again
        assert waiting["skipped_users"]["in_batch"] == USERS and "sent" not in waiting["batches"]
        assert len(server.batches) == sent["batches"]["sent"]

        for batch_id in batch_ids(server):
            server.finish(batch_id)
        applied = run(over(server, batch_url, batch_mode="provider"))
    assert applied["status"] == "succeeded", applied
    assert (applied["by_mode"]["batch"]["calls"] == USERS and "direct" not in applied["by_mode"]) or (
        applied["by_mode"]["direct"]["calls"]
        == applied["llm_calls_by_purpose"].get("summarize", 0)
        + applied["llm_calls_by_purpose"].get("reconcile", 0)
    )
    assert rows(batch_url, FINAL) == rows(direct_url, FINAL) and rows(direct_url, FINAL)
    assert rows(batch_url, CONTEXT) == rows(direct_url, CONTEXT)
    assert rows(batch_url, "select status, count(*) from ops.batch_requests group by 1") == [
        ("applied", USERS)
    ]
    assert {s for (s,) in rows(batch_url, "select status from ops.batches")} == {"collected"}
    # the ledger records the answers as asked: the batch's model and prompt version, this run's id
    versions = rows(batch_url, "select distinct prompt_version, model from signals.events")
    assert versions == rows(direct_url, "select distinct prompt_version, model from signals.events")


def test_a_run_that_waits_applies_its_own_batches_when_they_end_in_time(new_database):
    url = seeded(new_database, users=4)
    with serving(offline, auto_finish=True) as server:
        summary = run(over(server, url, batch_mode="provider", batch_wait_s=30, batch_poll_s=0.05))
    assert summary["batches"]["users_sent"] == 4 and summary["by_mode"]["batch"]["calls"] == 4
    assert applied_users(url) == 4


def test_a_partially_answered_batch_applies_the_answers_and_fails_only_the_users_whose_request_failed(
    new_database,
):
    url = seeded(new_database, users=6)
    failing: set[str] = set()

    def respond(body: dict) -> tuple[int, dict]:
        text = body["messages"][-1]["content"]
        if any(marker in text for marker in failing):
            return error(500, "server error", kind="server_error")
        return offline(body)

    with serving(respond) as server:
        run(over(server, url, batch_mode="provider", shards=1))
        (batch_id,) = batch_ids(server)
        users = [u for (u,) in rows(url, "select distinct user_id from ops.batch_requests order by 1")]
        first = rows(url, "select content from source.messages m join source.conversations c using "
                          "(conversation_id) where c.user_id = %(u)s and m.role = 'user' limit 1", {"u": users[0]})  # fmt: skip
        failing.add(first[0][0][:40])
        server.finish(batch_id)
        summary = run(over(server, url, batch_mode="provider", shards=1))
        assert summary["failures"] == 1 and summary["batches"]["failed"] == 1
        assert rows(url, "select user_id, stage, error_kind, counted from ops.failures") == [
            (users[0], "extract", "server_error", False)
        ]
        assert rows(
            url, "select count(*) from signals.watermarks where user_id = %(u)s", {"u": users[0]}
        ) == [(0,)]
        assert applied_users(url) == 5
        # the failed user is pending again and goes in the next batch
        failing.clear()
        again = run(over(server, url, batch_mode="provider", shards=1))
        assert again["batches"]["users_sent"] == 1


@pytest.mark.parametrize("fate", ["expire", "cancel"])
def test_the_unanswered_users_of_an_expired_or_cancelled_batch_are_pending_again(new_database, fate):
    from agent_signals.adapters import provider_batches

    url = seeded(new_database, users=4)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", shards=1)
        run(settings)
        (batch_id,) = batch_ids(server)
        if fate == "expire":
            server.expire(batch_id, answered=1)
        else:
            asyncio.run(provider_batches.cancel(settings, batch_id))
        summary = run(settings)
        answered = 1 if fate == "expire" else 0
        assert summary["batches"].get("answers", 0) == answered
        assert summary["batches"]["unanswered"] == 4 - answered
        assert any(f"ended {'expired' if fate == 'expire' else 'cancelled'}" in w for w in warnings(url))
        assert applied_users(url) == answered
        again = run(settings)  # pending again: sent in a new batch
        assert again["batches"]["users_sent"] == 4 - answered
    assert rows(url, "select status, count(*) from ops.batch_requests group by 1 order by 1") == sorted(
        [("unanswered", 4 - answered), ("waiting", 4 - answered)] + ([("applied", 1)] if answered else [])
    )


def test_a_crash_between_creating_the_batch_and_recording_it_leaves_no_orphan(new_database, monkeypatch):
    """The run dies after the provider created its batch and before its id is recorded: the next run finds
    the provider's batch by the key in its metadata and applies its answers; nothing is sent twice."""
    from agent_signals.store.ledger import batch_ledger

    url = seeded(new_database, users=3)
    with serving(offline) as server:

        async def crash(*_args, **_kwargs):
            raise RuntimeError("the process died here")

        with monkeypatch.context() as patched:
            patched.setattr(batch_ledger, "submitted", crash)
            with pytest.raises(RuntimeError):
                run(over(server, url, batch_mode="provider", shards=1))
        (batch_id,) = batch_ids(server)
        assert rows(url, "select status, provider_batch_id from ops.batches") == [("preparing", None)]
        adopted = run(over(server, url, batch_mode="provider", shards=1))
        assert adopted["batches"]["adopted"] == 1 and "sent" not in adopted["batches"]
        assert rows(url, "select provider_batch_id from ops.batches") == [(batch_id,)]
        server.finish(batch_id)
        applied = run(over(server, url, batch_mode="provider", shards=1))
    assert applied["batches"]["answers"] == 3 and len(server.batches) == 1
    assert applied_users(url) == 3


def test_a_batch_prepared_by_a_run_that_died_before_the_provider_had_it_is_abandoned(
    new_database, monkeypatch
):
    from agent_signals.adapters import provider_batches

    url = seeded(new_database, users=3)
    with serving(offline) as server:

        async def crash(*_args, **_kwargs):
            raise RuntimeError("the process died before uploading")

        with monkeypatch.context() as patched:
            patched.setattr(provider_batches, "submit", crash)
            with pytest.raises(RuntimeError):
                run(over(server, url, batch_mode="provider", shards=1))
        again = run(over(server, url, batch_mode="provider", shards=1))
    assert again["batches"]["abandoned"] == 1 and again["batches"]["users_sent"] == 3
    assert rows(url, "select status from ops.batches order by created_at") == [("abandoned",), ("submitted",)]


def test_a_crash_while_applying_is_finished_by_the_next_run_and_no_answer_is_applied_twice(
    new_database, monkeypatch
):
    from agent_signals.stages import apply_safely

    url = seeded(new_database, users=4)
    with serving(offline) as server:
        run(over(server, url, batch_mode="provider", shards=1, concurrency=1))
        (batch_id,) = batch_ids(server)
        server.finish(batch_id)
        real = apply_safely.apply_users
        applied: list[str] = []

        async def dies_after_two(conn, settings, writes, **kwargs):  # the second group of two never written
            if len(applied) == 2:
                raise SystemExit("killed while applying")
            result = await real(conn, settings, writes, **kwargs)
            applied.extend(w.user_id for w in writes)
            return result

        with monkeypatch.context() as patched:
            patched.setattr(apply_safely, "apply_users", dies_after_two)
            with pytest.raises(SystemExit):
                run(over(server, url, batch_mode="provider", shards=1, shard_size=2, shards_in_flight=1))
        assert rows(url, "select count(*) from ops.batch_requests where status = 'applied'") == [(2,)]
        before = rows(url, FINAL)
        finished = run(over(server, url, batch_mode="provider", shards=1))
    assert finished["batches"]["answers"] == 2  # only the two left: the first two are not read again
    assert rows(url, "select count(*) from ops.batch_requests where status = 'applied'") == [(4,)]
    after = rows(url, FINAL)
    assert [r for r in after if r[0] in applied] == [
        r for r in before if r[0] in applied
    ]  # not applied twice


def test_answers_keep_the_prompt_version_and_model_they_were_asked_with(new_database):
    url = seeded(new_database, users=3)
    with serving(offline) as server:
        run(over(server, url, batch_mode="provider", shards=1, prompt_version="v1"))
        (batch_id,) = batch_ids(server)
        server.finish(batch_id)
        summary = run(over(server, url, batch_mode="provider", shards=1, prompt_version="v2",
                           model="openai/another-model"))  # fmt: skip
    assert summary["batches"]["answers"] == 3
    (asked,) = rows(url, "select prompt_version, model from ops.batches")
    assert asked[1] == MODEL and asked[0].startswith("extract/v1")
    assert rows(url, "select distinct prompt_version, model from signals.events") == [asked]


def test_two_runs_at_once_send_each_user_once(new_database):
    url = seeded(new_database, users=8)
    with serving(offline) as server:

        async def both() -> list[dict]:
            settings = over(server, url, batch_mode="provider")
            return list(await asyncio.gather(extract_signals(kind="scheduled", settings=settings),
                                             extract_signals(kind="manual", settings=settings)))  # fmt: skip

        first, second = asyncio.run(both())
        sent = first["batches"].get("users_sent", 0) + second["batches"].get("users_sent", 0)
        assert sent == 8
        assert rows(url, "select count(*), count(distinct user_id) from ops.batch_requests") == [(8, 8)]
        for batch_id in batch_ids(server):
            server.finish(batch_id)

        async def collect_both() -> list[dict]:
            settings = over(server, url, batch_mode="provider")
            return list(await asyncio.gather(extract_signals(kind="scheduled", settings=settings),
                                             extract_signals(kind="manual", settings=settings)))  # fmt: skip

        a, b = asyncio.run(collect_both())
    assert a["batches"].get("answers", 0) + b["batches"].get("answers", 0) == 8
    assert rows(url, "select status, count(*) from ops.batch_requests group by 1") == [("applied", 8)]


def test_a_batch_out_longer_than_the_warning_age_is_in_the_report_and_a_warning(new_database):
    from agent_signals.store.ledger.report import run_markdown

    url = seeded(new_database, users=2)
    with serving(offline) as server:
        run(over(server, url, batch_mode="provider", shards=1))
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("update ops.batches set submitted_at = now() - interval '30 hours'")
        settings = over(server, url, batch_mode="provider", shards=1)
        summary = run(settings)
        assert any("has been out for 30.0 h" in w for w in warnings(url))
        with psycopg.connect(url, autocommit=True) as conn:
            markdown = run_markdown(conn, settings, summary)
    assert "## Batches in flight (1)" in markdown and "**too old**" in markdown


def test_a_provider_that_refuses_the_batch_stops_the_run_and_leaves_its_users_pending(new_database):
    url = seeded(new_database, users=2)
    with serving(offline) as server:
        server.fail_creates(1, 401)
        summary_error = None
        try:
            run(over(server, url, batch_mode="provider", shards=1))
        except Exception as exc:  # a misconfigured model stops the run
            summary_error = exc
        assert summary_error is not None and "AGENT_SIGNALS_MODEL" in str(summary_error)
        assert rows(url, "select status from ops.batches") == [("unsent",)]
        assert rows(url, "select status, count(*) from ops.batch_requests group by 1") == [("unanswered", 2)]
        again = run(over(server, url, batch_mode="provider", shards=1))
    assert again["batches"]["users_sent"] == 2


def test_a_user_whose_conversations_were_deleted_while_out_is_still_collected(new_database):
    """Not pending any more, the user is still handed to a shard: their requests close, the batch is
    collected, and the answer that cites nothing left is not written."""
    url = seeded(new_database, users=2)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", shards=1)
        run(settings)
        (batch_id,) = batch_ids(server)
        (gone,) = rows(url, "select min(user_id) from ops.batch_requests")[0]
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "delete from source.messages where conversation_id in (select conversation_id from "
                "source.conversations where user_id = %(u)s)",
                {"u": gone},
            )
            conn.execute("delete from source.conversations where user_id = %(u)s", {"u": gone})
        server.finish(batch_id)
        run(settings)
    assert rows(url, "select status from ops.batches") == [("collected",)]
    assert rows(url, "select count(*) from signals.signals where user_id = %(u)s", {"u": gone}) == [(0,)]


def stale_summaries_sent(server: BatchServer, url: str, settings: Settings) -> tuple[str, int, dict]:
    """With BATCH_FOLLOWUPS=batch: the users' extraction batch sent and applied, every summary made stale,
    and a run that sends them; returns the extraction batch's id, how many summaries were stale and that
    run's summary."""
    run(settings)
    (extract_batch,) = list(server.batches)
    server.finish(extract_batch)
    run(settings)
    with psycopg.connect(url, autocommit=True) as conn:  # every summary made stale
        conn.execute("update signals.summaries set fingerprint = 'stale'")
    stale = rows(url, "select count(*) from signals.stale_summaries")[0][0]
    assert stale >= 1
    return extract_batch, stale, run(settings)


def test_summaries_go_in_a_batch_of_their_own_when_follow_ups_are_batched(new_database):
    """BATCH_FOLLOWUPS=batch: a stale summary is asked in a summarize batch, not directly, and written by a
    later run for the signal set it was asked about."""
    url = seeded(new_database, users=3)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", batch_followups="batch", shards=1)
        extract_batch, stale, sent = stale_summaries_sent(server, url, settings)
        assert sent["llm_calls_by_purpose"].get("summarize", 0) == 0  # no direct summary call
        assert sent["batches"]["summarize_requests_sent"] == stale
        (summary_batch,) = [b for b in server.batches if b != extract_batch]
        again = run(settings)  # still out: not sent twice
        assert "summarize_requests_sent" not in again["batches"]
        server.finish(summary_batch)
        # collected whatever the mode is now: follow-ups switched back to direct while the batch was out
        written = run(settings.replace(batch_followups="direct"))
    assert written["by_mode"]["batch"]["calls"] == stale and written["actions"]["summarized"] == stale
    assert "direct" not in written["by_mode"]  # nothing left to ask directly
    assert rows(url, "select count(*) from signals.stale_summaries") == [(0,)]
    assert rows(url, "select status, count(*) from ops.batch_requests where purpose = 'summarize' "
                     "group by 1") == [("applied", stale)]  # fmt: skip


def test_an_answer_cut_at_its_budget_is_asked_again_in_the_next_batch_with_a_larger_one(new_database):
    """As a direct call asks again at once with twice the budget: not counted against the user the first
    time; cut again at the larger budget, it is."""
    url = seeded(new_database, users=1)
    budgets: list[int] = []

    def respond(body: dict) -> tuple[int, dict]:
        budgets.append(body["max_tokens"])
        status, answer = offline(body)
        answer["choices"][0]["finish_reason"] = "length"  # however large the budget
        return status, answer

    with serving(respond) as server:
        settings = over(server, url, batch_mode="provider", shards=1)
        for _ in range(3):  # send, apply (cut) and send again, apply (cut again)
            run(settings)
            for batch_id in server.batches:
                if server.batches[batch_id]["status"] == "in_progress":
                    server.finish(batch_id)
        run(settings)
    assert budgets == [1024, 2048]
    assert rows(url, "select error_kind, counted from ops.failures order by failure_id") == [
        ("truncated", False),
        ("truncated", True),
    ]


def test_a_model_whose_provider_cannot_take_batches_stops_the_run_before_any_user(new_database):
    from agent_signals.adapters.llm import ModelMisconfigured

    url = seeded(new_database, users=1)
    with pytest.raises(ModelMisconfigured, match="AGENT_SIGNALS_BATCH_MODE=provider"):
        run(Settings(database_url=url, batch_mode="provider"))  # the offline model: no batch API
    assert rows(url, "select status from ops.runs") == [("failed",)]
    assert rows(url, "select count(*) from ops.batches") == [(0,)]


def test_the_budget_leaves_the_answers_it_cannot_pay_for_waiting_for_the_next_run(new_database):
    url = seeded(new_database, users=4)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", shards=1, concurrency=1)
        run(settings)
        (batch_id,) = list(server.batches)
        server.finish(batch_id)
        first = run(settings.replace(max_run_tokens=1))  # spent by the first answer
        assert first["batches"]["answers"] == 1 and first["skipped_users"]["budget"] == 3
        assert rows(url, "select status, count(*) from ops.batch_requests group by 1 order by 1") == [
            ("applied", 1),
            ("waiting", 3),
        ]
        rest = run(settings)
    assert rest["batches"]["answers"] == 3


def test_a_batch_or_its_files_the_provider_no_longer_knows_give_their_users_back(new_database):
    url = seeded(new_database, users=2)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", shards=1)
        run(settings)
        (first,) = list(server.batches)
        del server.batches[first]  # deleted at the provider while out
        lost = run(settings)
        assert lost["batches"]["abandoned"] == 1 and lost["status"] == "succeeded"
        assert lost["batches"]["users_sent"] == 2  # given back by the poll, sent again by the shards
        assert any("no longer knows it" in w for w in warnings(url))
        (second,) = [b for b in server.batches if b != first]
        done = server.finish(second)
        del server.files[done["output_file_id"]]  # its answers deleted before they were read
        gone = run(settings)
    assert gone["status"] == "succeeded" and gone["batches"]["unanswered"] == 2
    assert rows(url, "select error_kind, count(*) from ops.batch_requests where status = 'unanswered' "
                     "group by 1 order by 1 nulls last") == [("files_gone", 2), (None, 2)]  # fmt: skip


def test_a_user_forgotten_while_out_is_not_learned_from_the_answer_that_comes_back(new_database):
    from agent_signals.stages.by_hand.own_signals import forget_user

    url = seeded(new_database, users=2)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", shards=1)
        run(settings)
        (batch_id,) = list(server.batches)
        (gone,) = rows(url, "select min(user_id) from ops.batch_requests")[0]
        with psycopg.connect(url, autocommit=True) as conn:
            forget_user(conn, settings, gone)
        assert rows(url, "select count(*) from ops.batch_requests where user_id = %(u)s", {"u": gone}) == [
            (0,)
        ]
        server.finish(batch_id)
        after = run(settings)
    assert after["batches"]["answers"] == 1  # the other user's only
    assert rows(url, "select count(*) from signals.signals where user_id = %(u)s", {"u": gone}) == [(0,)]
    assert rows(url, "select status from ops.batches") == [("collected",)]


def test_the_command_line_run_takes_batch_mode_from_the_environment_and_says_what_it_sent(
    new_database, tmp_path, prefect_api
):
    """What a scheduled deployment's flow run does: settings from the environment, nothing else changed."""
    from tests.test_run_life import base_env, cli

    url = seeded(new_database, users=3)
    with serving(offline) as server:
        env = base_env(url, tmp_path, api=prefect_api, AGENT_SIGNALS_MODEL=MODEL, AGENT_SIGNALS_API_BASE=server.url,
                       AGENT_SIGNALS_API_KEY="sk-test", AGENT_SIGNALS_BATCH_MODE="provider", AGENT_SIGNALS_SHARDS="1")  # fmt: skip
        sent = cli("run", env=env)
        assert sent.returncode == 0, sent.stderr
        assert "batches: " in sent.stdout and "users_sent 3" in sent.stdout
        listed = cli("batches", "list", env=env)
        assert listed.returncode == 0 and "submitted" in listed.stdout
        (batch_id,) = list(server.batches)
        server.finish(batch_id)
        applied = cli("run", env=env)
    assert applied.returncode == 0, applied.stderr
    assert "answers 3" in applied.stdout
    assert applied_users(url) == 3


def test_a_summary_batch_whose_answers_the_provider_deleted_gives_its_users_back(new_database):
    """As for extraction answers: the requests close `unanswered` (files_gone) and the batch is collected,
    instead of being read again every run."""
    url = seeded(new_database, users=2)
    with serving(offline) as server:
        settings = over(server, url, batch_mode="provider", batch_followups="batch", shards=1)
        extract_batch, _stale, _sent = stale_summaries_sent(server, url, settings)
        (summary_batch,) = [b for b in server.batches if b != extract_batch]
        done = server.finish(summary_batch)
        del server.files[done["output_file_id"]]
        gone = run(settings)
    assert gone["status"] == "succeeded"
    closed = "select distinct r.status, r.error_kind from ops.batch_requests r join ops.batches b using (batch_key)"
    assert rows(url, f"{closed} where b.provider_batch_id = %(p)s", {"p": summary_batch}) == [
        ("unanswered", "files_gone")
    ]
    assert rows(url, "select status from ops.batches where purpose = 'summarize' order by created_at") == [
        ("collected",),
        ("submitted",),  # the stale summaries asked again, in a new batch
    ]
