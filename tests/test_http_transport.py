"""The HTTP path's transport, through litellm's real `openai/` provider against the loopback server
(tests/http_model.py): 429 with Retry-After, 500, socket timeouts, the provider settings (API base, key, extra
headers), prompt-cache hints and cached prompt tokens. A 401 stopping the run at its first request is covered
end to end in test_run_life.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from pydantic import ValidationError

from agent_signals.adapters import llm, providers
from agent_signals.config import Settings, SettingsError, load_settings
from tests import http_model

PROMPT = [{"role": "system", "content": "Fixed instructions."}, {"role": "user", "content": "Per-user part."}]
ANSWER = '{"actions": []}'


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the settings point at the server: no provider variable of the caller's environment."""
    for name in ("OPENAI_API_BASE", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def settings_for(server: http_model.HttpModel, **values: object) -> Settings:
    base = {"model": "openai/some-name", "api_base": server.url, "api_key": "sk-test", "retry_backoff_s": 0}
    return Settings(**(base | values))


def complete(settings: Settings) -> llm.Completion:
    return asyncio.run(llm.complete(PROMPT, settings))


def failure(settings: Settings) -> llm.ModelUnavailable:
    with pytest.raises(llm.ModelUnavailable) as caught:
        complete(settings)
    return caught.value


# ---------------------------------------------------------------------------------------------------
# Transport faults


@pytest.mark.unit
def test_a_429_is_retried_no_sooner_than_its_retry_after_asks():
    with http_model.serve(
        http_model.in_turn(http_model.rate_limited("1"), http_model.chat(ANSWER))
    ) as server:
        completion = complete(settings_for(server, max_retries=2))
    assert (completion.text, completion.attempts) == (ANSWER, 2)
    first, second = server.received
    assert second.at - first.at >= 1.0  # the backoff is 0: only Retry-After made the client wait


@pytest.mark.unit
def test_retry_after_is_read_in_seconds_or_as_a_date_and_capped():
    in_an_hour = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    asked = {}
    for retry_after in ("7", in_an_hour):
        with http_model.serve(lambda _p, _b, r=retry_after: http_model.rate_limited(r)) as server:
            settings = settings_for(server, max_retries=0, retry_after_max_s=120)
            exc = failure(settings)
        assert exc.kind == "rate_limit" and len(server.requests) == 1
        asked[retry_after] = (llm.retry_after_s(exc.__cause__), llm.retry_delay_s(settings, 1, exc.__cause__))
    assert asked["7"] == (7.0, 7.0)
    seconds, delay = asked[in_an_hour]
    assert 3500 < seconds <= 3600 and delay == 120  # capped at AGENT_SIGNALS_RETRY_AFTER_MAX_S


@pytest.mark.unit
def test_a_server_error_is_retried_then_the_model_is_unavailable():
    with http_model.serve(lambda _p, _b: http_model.SERVER_ERROR) as server:
        exc = failure(settings_for(server, max_retries=2))
    assert (exc.kind, exc.attempts, len(server.requests)) == ("server_error", 3, 3)


@pytest.mark.unit
def test_a_server_slower_than_the_timeout_is_retried_then_the_model_is_unavailable():
    # The deadline covers litellm's setup of its first call in a process (about half a second): a call to a
    # fast server first, so that each attempt's request reaches the slow server well within its second.
    with http_model.serve(lambda _p, _b: http_model.chat(ANSWER)) as fast:
        complete(settings_for(fast))
    with http_model.serve(lambda _p, _b: http_model.slow(30)) as server:
        exc = failure(settings_for(server, max_retries=1, timeout_s=1))
        arrived = server.wait_for_requests(2)
    assert (exc.kind, exc.attempts, arrived) == ("timeout", 2, 2)


# ---------------------------------------------------------------------------------------------------
# Provider settings


def answer_both(path: str, body: dict) -> tuple[int, dict]:
    return http_model.embeddings(body) if path.endswith("/embeddings") else http_model.chat(ANSWER)


@pytest.mark.unit
def test_the_api_base_key_and_extra_headers_reach_the_server_on_every_call():
    with http_model.serve(answer_both) as server:
        settings = settings_for(
            server,
            api_key="sk-from-settings",
            extra_headers='{"X-Team": "signals", "OpenAI-Organization": "org-1"}',
            embedding_model="openai/some-embedder",
        )
        complete(settings)
        asyncio.run(llm.embed(["a", "b"], settings))
    assert [r.path for r in server.received] == ["/v1/chat/completions", "/v1/embeddings"]
    for request in server.received:
        assert request.headers["authorization"] == "Bearer sk-from-settings"
        assert (request.headers["x-team"], request.headers["openai-organization"]) == ("signals", "org-1")


@pytest.mark.unit
def test_the_api_key_setting_is_never_shown():
    """That it stands for the provider's variable is checked when the settings load: test_settings_load.py."""
    settings = Settings(api_key="sk-secret-1")
    assert "sk-secret-1" not in repr(settings) + str(settings) + settings.model_dump_json()


@pytest.mark.unit
@pytest.mark.parametrize(
    ("model", "variables"),
    [("openai/some-name", {"OPENAI_API_KEY": ""}), ("gemini/gemini-2.0-flash", {})],
    ids=["openai-empty-key", "gemini-no-key"],
)
def test_a_missing_key_is_a_misconfiguration_whatever_litellm_calls_it(monkeypatch, model, variables):
    """Issue 33: the OpenAI SDK's "Missing credentials" reaches litellm's caller as a 500 and Gemini's "Missing
    Gemini API key" as a connection error; both were retried as transient faults, four calls per user."""
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with http_model.serve(lambda _p, _b: http_model.chat(ANSWER)) as server:
        settings = Settings(model=model, api_base=server.url, max_retries=3, retry_backoff_s=0)
        with pytest.raises(llm.ModelMisconfigured) as caught:
            complete(settings)
    assert caught.value.kind == "authentication" and caught.value.exit_code == 2
    assert server.requests == []  # refused by the client, not retried


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("{x", "not JSON"),
        ('["X-Team"]', "must be a JSON object"),
        ('{"X Team": "a"}', "not an HTTP header name"),
        ('{"X-Team": 3}', "must be a string"),
        ('{"X-Team": "a\\r\\nX-Other: b"}', "must be a string on one line"),
    ],
)
@pytest.mark.unit
def test_extra_headers_that_are_not_a_json_object_of_headers_are_refused_by_name(monkeypatch, value, says):
    with pytest.raises(ValidationError, match=says):
        Settings(extra_headers=value)
    monkeypatch.setenv("AGENT_SIGNALS_EXTRA_HEADERS", value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert caught.value.message.startswith("AGENT_SIGNALS_EXTRA_HEADERS: ") and says in caught.value.message
    assert caught.value.hint == "fix or unset AGENT_SIGNALS_EXTRA_HEADERS"


@pytest.mark.unit
def test_unset_provider_settings_send_nothing_of_their_own():
    assert providers.provider_kwargs(Settings()) == {}
    assert Settings(extra_headers="").model.extra_headers is None


# ---------------------------------------------------------------------------------------------------
# Prompt caching


@pytest.mark.unit
def test_an_anthropic_model_gets_a_cache_hint_on_the_system_prompt_and_an_openai_model_does_not():
    hinted = providers.with_cache_hints(PROMPT, "anthropic/claude-sonnet-4-20250514")
    assert hinted[0] == {
        "role": "system",
        "content": [{"type": "text", "text": "Fixed instructions.", "cache_control": {"type": "ephemeral"}}],
    }
    assert hinted[1] == PROMPT[1]  # the per-user part is after the cached prefix, unmarked
    assert providers.with_cache_hints(PROMPT, "openai/gpt-4o-mini") == PROMPT  # OpenAI caches by itself
    assert providers.with_cache_hints(PROMPT, "offline/rules") == PROMPT


@pytest.mark.unit
def test_the_cache_hint_reaches_anthropics_api_through_litellm():
    with http_model.serve(lambda _p, _b: http_model.UNAUTHORIZED) as server:
        settings = settings_for(server, model="anthropic/claude-sonnet-4-20250514", api_base=server.url[:-3])
        with pytest.raises(llm.ModelMisconfigured):
            complete(settings)
    (request,) = server.received
    assert request.path == "/v1/messages"
    system = request.body["system"]
    assert system == [{"type": "text", "text": "Fixed instructions.", "cache_control": {"type": "ephemeral"}}]


@pytest.mark.unit
def test_cached_prompt_tokens_the_provider_reports_are_counted():
    with http_model.serve(
        lambda _p, _b: http_model.chat(ANSWER, prompt_tokens=1200, cached_tokens=1024)
    ) as s:
        completion = complete(settings_for(s))
    assert (completion.prompt_tokens, completion.cached_prompt_tokens) == (1200, 1024)
    with http_model.serve(lambda _p, _b: http_model.chat(ANSWER, prompt_tokens=1200)) as server:
        assert complete(settings_for(server)).cached_prompt_tokens == 0


@pytest.mark.unit
def test_an_openai_model_gets_the_prompt_as_rendered():
    with http_model.serve(answer_both) as server:
        complete(settings_for(server))
    assert server.received[0].body["messages"] == PROMPT


# ---------------------------------------------------------------------------------------------------
# End to end: one run over HTTP


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_run_over_http_records_cached_tokens_and_a_server_error_as_a_transient_failure(
    conn, settings, settings_with
):
    from agent_signals.flows.extract import extract_signals
    from agent_signals.store.ledger.report import run_markdown
    from tests.builders import conversation, load_conversations

    load_conversations(conn, settings, *(conversation(f"c{u}", u, [("user", f"I'm {u}.")]) for u in ("ann", "bo")),
                       conversation("cz", "cy", [("user", "I'm cy, BOOM.")]))  # fmt: skip

    def respond(_path: str, body: dict) -> tuple[int, dict]:
        if "BOOM" in body["messages"][-1]["content"]:
            return http_model.SERVER_ERROR
        return http_model.chat(ANSWER, prompt_tokens=1500, cached_tokens=1024)

    with http_model.serve(respond) as server:
        over_http = settings_with(model="openai/some-name", api_base=server.url, api_key="sk-test",
                                  max_retries=1, retry_backoff_s=0, shards=1)  # fmt: skip
        summary = asyncio.run(extract_signals(kind="manual", settings=over_http))
    assert len(server.requests) == 4  # ann, bo, and cy's call retried once
    assert (summary["status"], summary["llm_calls"], summary["failures"]) == ("partial", 2, 1)
    row = conn.execute("select prompt_tokens, cached_prompt_tokens from ops.runs").fetchone()
    assert row == (3000, 2048) and summary["cached_prompt_tokens"] == 2048
    assert "| 3000 | 2048 |" in run_markdown(conn, settings, summary)
    failure = conn.execute(
        "select user_id, stage, error_kind, counted, retry_after from ops.failures"
    ).fetchone()
    assert failure == ("cy", "extract", "server_error", False, None)  # not counted against cy
