"""The local files-and-batches server (tests/batch_server.py) through litellm's real OpenAI provider path: a
JSONL of chat requests uploaded, a batch created and retrieved, its output and error files read back, and a
batch that expires half answered or is cancelled. The ground the provider batch mode (issue 18) stands on."""

from __future__ import annotations

import asyncio
import json

import litellm
import openai
import pytest

from agent_signals.adapters.provider_batches import QUIET
from tests.batch_server import serving
from tests.http_model import chat, error

# QUIET: litellm's logging of a retrieved batch would read its files again in a task left never awaited
pytestmark = [pytest.mark.unit, pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")]

KEY = "sk-test-batch"


def requests(n: int) -> bytes:
    lines = [
        {"custom_id": f"u{i}", "method": "POST", "url": "/v1/chat/completions",
         "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"user {i}"}]}}
        for i in range(n)
    ]  # fmt: skip
    return ("\n".join(json.dumps(line) for line in lines) + "\n").encode()


def answer(body: dict) -> tuple[int, dict]:
    """User 2 fails at the provider; the others are answered with their own message."""
    text = body["messages"][0]["content"]
    return error(500, "server error") if text == "user 2" else chat(json.dumps({"echo": text}))


async def submit(url: str, n: int):
    provider = {"custom_llm_provider": "openai", "api_base": url, "api_key": KEY}
    uploaded = await litellm.acreate_file(file=("requests.jsonl", requests(n)), purpose="batch", **provider)
    batch = await litellm.acreate_batch(
        completion_window="24h", endpoint="/v1/chat/completions", input_file_id=uploaded.id,
        metadata={"run": "r1"}, **provider,
    )  # fmt: skip
    return provider, uploaded, batch


async def lines(file_id: str | None, provider: dict) -> dict[str, dict]:
    if file_id is None:
        return {}
    content = await litellm.afile_content(file_id=file_id, **provider)
    return {(row := json.loads(line))["custom_id"]: row for line in content.text.splitlines() if line}


def test_a_batch_goes_up_comes_back_and_its_failed_requests_are_in_the_error_file():
    async def scenario():
        with serving(answer) as server:
            provider, uploaded, batch = await submit(server.url, 4)
            assert server.files[uploaded.id]["_data"] == requests(4)  # the multipart upload, byte for byte
            assert batch.status == "in_progress" and batch.metadata == {"run": "r1"}
            waiting = await litellm.aretrieve_batch(batch_id=batch.id, **QUIET, **provider)
            assert waiting.status == "in_progress"
            server.finish(batch.id)
            done = await litellm.aretrieve_batch(batch_id=batch.id, **QUIET, **provider)
            assert done.status == "completed"
            assert (done.request_counts.completed, done.request_counts.failed) == (3, 1)
            output, errors = (
                await lines(done.output_file_id, provider),
                await lines(done.error_file_id, provider),
            )
            assert sorted(output) == ["u0", "u1", "u3"] and sorted(errors) == ["u2"]
            body = output["u1"]["response"]["body"]
            assert json.loads(body["choices"][0]["message"]["content"]) == {"echo": "user 1"}
            assert errors["u2"]["response"]["status_code"] == 500

    asyncio.run(scenario())


def test_an_expired_batch_keeps_what_it_answered_and_a_cancelled_one_ends_at_once():
    async def scenario():
        with serving(answer) as server:
            provider, _uploaded, batch = await submit(server.url, 4)
            server.expire(batch.id, answered=2)
            expired = await litellm.aretrieve_batch(batch_id=batch.id, **QUIET, **provider)
            assert expired.status == "expired" and expired.request_counts.completed == 2
            assert sorted(await lines(expired.output_file_id, provider)) == ["u0", "u1"]

            _provider, _uploaded, other = await submit(server.url, 2)
            cancelled = await litellm.acancel_batch(batch_id=other.id, **provider)
            assert cancelled.status == "cancelled"
            again = await litellm.aretrieve_batch(batch_id=other.id, **QUIET, **provider)
            assert again.status == "cancelled"

    asyncio.run(scenario())


def test_an_unknown_batch_is_the_sdks_not_found_error():
    """litellm's batch calls pass the OpenAI SDK's errors through unmapped (unlike its completion calls):
    what the batch mode must catch is openai.NotFoundError."""

    async def scenario():
        with serving(answer) as server, pytest.raises(openai.NotFoundError):
            await litellm.aretrieve_batch(
                batch_id="batch_404", custom_llm_provider="openai", api_base=server.url, api_key=KEY
            )

    asyncio.run(scenario())
