"""adapters/provider_batches.py against the local files-and-batches server (tests/batch_server.py) through litellm's
real OpenAI provider path: a batch submitted, looked at, found again by its key, cancelled, and its output
and error files read back (partial answers, expiry, a failed batch, cut and empty answers); the errors of a
direct call (retries, ModelMisconfigured, ModelUnavailable); the providers the mode accepts; the batch
price; and each line's body being, byte for byte, the body of a direct call. No coroutine is left never
awaited (litellm's own logging of a retrieved batch would leave one): warnings of it fail these tests."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import litellm
import pytest

from agent_signals.adapters import batch_results, llm, provider_batches
from agent_signals.adapters.provider_batches import BatchRequest
from agent_signals.config import Settings
from agent_signals_offline.provider import answer as offline_answer
from tests import http_model
from tests.batch_server import offline, serving
from tests.http_model import chat, cut, error
from tests.prompt_samples import rendered

pytestmark = [
    pytest.mark.unit,
    pytest.mark.filterwarnings("error::RuntimeWarning"),
    pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning"),
]

KEY = "sk-test-batch"
MODEL = "openai/gpt-4o-mini"  # litellm's cost map has its batch price (input/output_cost_per_token_batches)
PROMPTS = rendered()
FAMILIES = {"extract": "extract/v2", "reconcile": "reconcile/v1", "summarize": "summarize/v1"}


def settings(server, model: str = MODEL, **values) -> Settings:
    return Settings(model=model, api_base=server.url, api_key=KEY, max_retries=1, retry_backoff_s=0, **values)


def requests(n: int) -> list[BatchRequest]:
    return [BatchRequest(f"c{i}", [{"role": "system", "content": "sys"}, {"role": "user", "content": f"u{i}"}])
            for i in range(n)]  # fmt: skip


def by_user(replies: dict[str, tuple[int, dict]]):
    """A respond answering each request by its user message (`u<i>`), `{"ok": ...}` when not listed."""

    def respond(body: dict) -> tuple[int, dict]:
        text = body["messages"][-1]["content"]
        return replies.get(text, chat(json.dumps({"ok": text}), prompt_tokens=1000, completion_tokens=100))

    return respond


def run(scenario):
    return asyncio.run(scenario())


def posts(server, path: str) -> int:
    return sum(1 for method, p in server.requests if method == "POST" and p.split("?")[0] == path)


def lists(server) -> int:
    return sum(1 for method, p in server.requests if method == "GET" and p.split("?")[0] == "/v1/batches")


# lines and bodies


@pytest.mark.parametrize(
    "model",
    ["openai/gpt-4o-mini", "openai/some-name", "openai/o3-mini", "openai/gpt-5-mini", "hosted_vllm/qwen",
     "litellm_proxy/some-name", "azure/my-deployment"],
)  # fmt: skip
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_lines_body_is_what_a_direct_call_sends(model, family, monkeypatch):
    """litellm's own transformation (o-series and gpt-5: max_completion_tokens, no temperature, the system
    prompt as a user message; the model name without litellm's prefix) is in the line as in the call."""
    monkeypatch.setenv("AZURE_API_VERSION", "2024-10-21")
    prompt = PROMPTS[FAMILIES[family]]
    reply = chat('{"summary": "x", "actions": [], "decisions": []}')
    with http_model.serve(lambda _path, _body: reply) as server:
        configured = Settings(model=model, api_base=server.url, api_key=KEY, max_retries=0)
        asyncio.run(llm.complete(prompt, configured, family=family, max_tokens=300))
        [(_path, sent)] = server.requests
    line = provider_batches.request_line(configured, BatchRequest("c1", prompt, family), max_tokens=300)
    assert line["body"] == sent
    assert line["custom_id"] == "c1" and line["method"] == "POST"
    assert line["url"] == ("/chat/completions" if model.startswith("azure/") else "/v1/chat/completions")


def test_a_line_has_no_response_format_when_the_prompt_alone_asks_for_json():
    line = provider_batches.request_line(Settings(model=MODEL, structured_answers="none"), requests(1)[0])
    assert "response_format" not in line["body"]
    assert (
        line["body"]["max_tokens"] == Settings().model.max_answer_tokens and line["body"]["temperature"] == 0
    )


def test_a_batch_needs_requests_with_unique_ids():
    with pytest.raises(ValueError, match="at least one"):
        provider_batches.jsonl(Settings(model=MODEL), [])
    with pytest.raises(ValueError, match="repeated: c0"):
        provider_batches.jsonl(Settings(model=MODEL), requests(2) + requests(1))


# a batch's life


def test_a_batch_goes_up_and_its_answers_and_failures_come_back():
    async def scenario():
        failing = by_user({"u2": error(500, "The server had an error."), "u3": error(400, "Bad\nrequest")})
        with serving(failing) as server:
            configured = settings(server)
            batch_id = await provider_batches.submit(configured, requests(5), "run-1")
            [batch] = server.batches.values()
            assert batch["id"] == batch_id and batch["metadata"] == {"agent_signals_batch": "run-1"}
            assert batch["endpoint"] == "/v1/chat/completions" and batch["completion_window"] == "24h"
            upload = server.files[batch["input_file_id"]]
            assert upload["purpose"] == "batch" and upload["_data"] == provider_batches.jsonl(
                configured, requests(5)
            )

            waiting = await provider_batches.retrieve(configured, batch_id)
            assert waiting.status == "in_progress" and not waiting.ended and waiting.output_file_id is None
            assert await batch_results.results(configured, waiting) == {}

            server.finish(batch_id)
            done = await provider_batches.retrieve(configured, batch_id)
            assert done.ended and done.status == "completed"
            assert (done.total, done.completed, done.failed) == (5, 3, 2)
            assert done.created_at is not None and done.error is None
            got = await batch_results.results(configured, done)
            assert sorted(got) == ["c0", "c1", "c2", "c3", "c4"]
            answer = got["c1"].completion
            assert answer is not None and json.loads(answer.text) == {"ok": "u1"} and not answer.truncated
            assert (answer.prompt_tokens, answer.completion_tokens, answer.attempts) == (1000, 100, 1)
            assert answer.cost_usd == pytest.approx(1000 * 7.5e-08 + 100 * 3e-07)  # gpt-4o-mini's batch price
            assert got["c1"].error_kind is None
            assert (got["c2"].completion, got["c2"].error_kind) == (None, "server_error")
            assert got["c2"].error == "server_error: status 500: The server had an error."
            assert got["c3"].error_kind == "bad_request"
            assert got["c3"].error == "bad_request: status 400: Bad request"

    run(scenario)


def test_an_expired_batch_gives_what_it_answered_and_names_the_rest_expired():
    async def scenario():
        with serving(by_user({})) as server:
            configured = settings(server)
            batch_id = await provider_batches.submit(configured, requests(4), "run-1")
            server.expire(batch_id, answered=1)
            expired = await provider_batches.retrieve(configured, batch_id)
            assert expired.ended and (expired.status, expired.completed, expired.failed) == ("expired", 1, 3)
            got = await batch_results.results(configured, expired)
            assert got["c0"].completion is not None
            assert {got[c].error_kind for c in ("c1", "c2", "c3")} == {"expired"}
            assert got["c1"].error.startswith("expired: This request could not be executed")

    run(scenario)


def test_a_cancelled_batch_ends_at_once_with_nothing_to_read():
    async def scenario():
        with serving(by_user({})) as server:
            configured = settings(server)
            batch_id = await provider_batches.submit(configured, requests(2), "run-1")
            cancelled = await provider_batches.cancel(configured, batch_id)
            assert cancelled.status == "cancelled" and cancelled.ended
            assert (await provider_batches.retrieve(configured, batch_id)).status == "cancelled"
            assert await batch_results.results(configured, cancelled) == {}

    run(scenario)


def test_a_failed_batch_says_why_and_has_nothing_to_read():
    async def scenario():
        with serving(by_user({})) as server:
            configured = settings(server)
            batch_id = await provider_batches.submit(configured, requests(2), "run-1")
            server.fail(batch_id, "Line 1: the model\n`x` does not exist.")
            failed = await provider_batches.retrieve(configured, batch_id)
            assert failed.ended and failed.status == "failed" and failed.output_file_id is None
            assert failed.error == "invalid_request: Line 1: the model `x` does not exist."
            assert await batch_results.results(configured, failed) == {}

    run(scenario)


def test_a_cut_answer_is_truncated_and_an_empty_one_an_error_whose_tokens_count():
    async def scenario():
        replies = {"u0": cut('{"actions": [', prompt_tokens=50, completion_tokens=64),
                   "u1": chat("  ", prompt_tokens=40, completion_tokens=1)}  # fmt: skip
        with serving(by_user(replies)) as server:
            configured = settings(server)
            batch_id = await provider_batches.submit(configured, requests(2), "run-1")
            server.finish(batch_id)
            got = await batch_results.results(
                configured, await provider_batches.retrieve(configured, batch_id)
            )
            truncated = got["c0"].completion
            assert truncated is not None and truncated.truncated and truncated.text == '{"actions": ['
            assert got["c0"].error_kind is None
            empty = got["c1"]
            assert (empty.completion, empty.error_kind) == (None, "empty_answer")
            spent = empty.spent
            assert spent is not None and (spent.prompt_tokens, spent.completion_tokens) == (40, 1)

    run(scenario)


def test_the_offline_model_answers_every_prompt_of_the_pipeline_in_a_batch_and_directly():
    async def scenario():
        with serving(offline) as server:
            configured = settings(server, model="openai/some-name")
            asked = [BatchRequest(family, PROMPTS[key], family) for family, key in FAMILIES.items()]
            batch_id = await provider_batches.submit(configured, asked, "run-1")
            server.finish(batch_id)
            got = await batch_results.results(
                configured, await provider_batches.retrieve(configured, batch_id)
            )
            for request in asked:
                completion = got[request.custom_id].completion
                assert completion is not None and completion.text == offline_answer(request.prompt)
                assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
            direct = await llm.complete(PROMPTS["summarize/v1"], configured, family="summarize")
            assert direct.text == offline_answer(PROMPTS["summarize/v1"])
            assert posts(server, "/v1/chat/completions") == 1

    run(scenario)


# finding a batch again


def test_find_pages_back_to_the_batch_of_a_key_and_stops_at_since(monkeypatch):
    monkeypatch.setattr(provider_batches, "LIST_PAGE", 2)

    async def scenario():
        with serving(by_user({})) as server:
            configured = settings(server)
            ids = [await provider_batches.submit(configured, requests(1), f"run-{i}") for i in range(7)]
            now = datetime.now(UTC)
            for hours, batch_id in enumerate(reversed(ids)):  # run-6 is the newest, run-0 six hours old
                server.batches[batch_id]["created_at"] = int((now - timedelta(hours=hours)).timestamp())
            week = now - timedelta(days=7)

            found = await provider_batches.find(configured, "run-0", week)
            assert found is not None and found.batch_id == ids[0] and found.status == "in_progress"
            assert lists(server) == 4  # pages of 2: run-6 5 | 4 3 | 2 1 | 0

            before = lists(server)
            assert await provider_batches.find(configured, "run-none", week) is None
            assert lists(server) - before == 4  # every page, to the end

            before = lists(server)
            assert (
                await provider_batches.find(configured, "run-0", now - timedelta(hours=2, minutes=30)) is None
            )
            assert lists(server) - before == 2  # stopped at run-3, three hours old

            newest = await provider_batches.find(configured, "run-6", week)
            assert newest is not None and newest.batch_id == ids[6]

    run(scenario)


# errors


def test_a_refused_key_on_create_is_misconfigured_at_once():
    async def scenario():
        with serving(by_user({})) as server:
            server.fail_creates(1, 401)
            with pytest.raises(llm.ModelMisconfigured) as raised:
                await provider_batches.submit(settings(server), requests(1), "run-1")
            assert raised.value.kind == "authentication" and "AGENT_SIGNALS_MODEL" in str(raised.value)
            assert posts(server, "/v1/batches") == 1 and not server.batches

    run(scenario)


def test_a_server_error_on_create_is_retried_then_the_model_is_unavailable():
    async def scenario():
        with serving(by_user({})) as server:
            server.fail_creates(2, 500)
            with pytest.raises(llm.ModelUnavailable) as raised:
                await provider_batches.submit(settings(server), requests(1), "run-1")
            assert (raised.value.kind, raised.value.attempts) == ("server_error", 2)
            assert posts(server, "/v1/batches") == 2 and not server.batches
            assert lists(server) == 1  # before the retry: did the first attempt make it after all?

    run(scenario)


@pytest.mark.parametrize("status", [429, 503])
def test_a_transient_error_on_create_is_retried(status):
    async def scenario():
        with serving(by_user({})) as server:
            server.fail_creates(1, status)
            batch_id = await provider_batches.submit(settings(server), requests(1), "run-1")
            assert list(server.batches) == [batch_id] and posts(server, "/v1/batches") == 2

    run(scenario)


def test_a_batch_created_whose_answer_was_lost_is_found_not_made_twice():
    async def scenario():
        with serving(by_user({})) as server:
            server.fail_creates(1, 502, created=True)
            batch_id = await provider_batches.submit(settings(server), requests(1), "run-1")
            assert list(server.batches) == [batch_id] and posts(server, "/v1/batches") == 1

    run(scenario)


def test_an_unknown_batch_is_misconfigured_and_no_retry_helps():
    async def scenario():
        with serving(by_user({})) as server:
            with pytest.raises(llm.ModelMisconfigured) as raised:
                await provider_batches.retrieve(settings(server), "batch_404")
            assert raised.value.kind == "not_found"
            asked = [r for r in server.requests if r[1].startswith("/v1/batches/")]
            assert asked == [("GET", "/v1/batches/batch_404")]

    run(scenario)


def test_a_server_that_is_gone_is_a_connection_fault_retried():
    async def scenario():
        with serving(by_user({})) as server:
            gone = settings(server)
        with pytest.raises(llm.ModelUnavailable) as raised:
            await provider_batches.retrieve(gone, "batch_1")
        assert (raised.value.kind, raised.value.attempts) == ("connection", 2)

    run(scenario)


# providers and prices


@pytest.mark.parametrize(
    "model",
    ["openai/gpt-4o-mini", "openai/some-name", "azure/my-deployment", "hosted_vllm/qwen", "litellm_proxy/x"],
)
def test_the_mode_accepts_openai_azure_and_openai_compatible_batch_servers(model):
    provider_batches.check_provider(Settings(model=model, api_base="http://127.0.0.1:1/v1", api_key=KEY))


@pytest.mark.parametrize(
    ("model", "names"),
    [
        ("anthropic/claude-3-5-haiku-20241022", "'anthropic'"),
        ("offline/rules", "'offline'"),
        ("vertex_ai/gemini-2.0-flash", "'vertex_ai'"),
        ("bedrock/anthropic.claude-3-haiku-20240307-v1:0", "'bedrock'"),
        ("mistral/mistral-small-latest", "'mistral'"),
        ("openai/o1-pro", "Responses API"),
    ],
)
def test_the_mode_refuses_other_providers_naming_the_setting(model, names):
    with pytest.raises(llm.ModelMisconfigured) as raised:
        provider_batches.check_provider(Settings(model=model))
    assert names in str(raised.value) and "AGENT_SIGNALS_BATCH_MODE" in raised.value.hint


def test_openai_compatible_servers_need_the_base_and_key_set():
    with pytest.raises(llm.ModelMisconfigured, match="hosted_vllm") as raised:
        provider_batches.check_provider(Settings(model="hosted_vllm/qwen", api_base="http://127.0.0.1:1/v1"))
    assert "AGENT_SIGNALS_API_BASE and AGENT_SIGNALS_API_KEY" in raised.value.hint


def test_the_batch_price_is_litellms_where_it_has_one_else_the_discounted_direct_price():
    configured = Settings(model=MODEL, batch_discount=0.4)
    assert litellm.model_cost["gpt-4o-mini"]["input_cost_per_token_batches"] == 7.5e-08
    assert batch_results.batch_cost(configured, MODEL, 1000, 100) == pytest.approx(
        1000 * 7.5e-08 + 100 * 3e-07
    )
    prices = litellm.model_cost["gpt-3.5-turbo"]
    assert "input_cost_per_token_batches" not in prices
    direct = 1000 * prices["input_cost_per_token"] + 100 * prices["output_cost_per_token"]
    assert batch_results.batch_cost(configured, "openai/gpt-3.5-turbo", 1000, 100) == pytest.approx(
        0.4 * direct
    )
    with_cache = batch_results.batch_cost(configured, "openai/gpt-5-mini", 1000, 100, cached=400)
    assert with_cache == pytest.approx(600 * 1.25e-07 + 400 * 1.25e-08 + 100 * 1e-06)  # its cached batch rate
    assert batch_results.batch_cost(configured, "openai/some-name", 1000, 100) == 0.0  # no price known
