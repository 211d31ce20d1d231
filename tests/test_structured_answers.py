"""Structured answers through litellm's real `openai/` provider and the loopback server (issue 16, point 2):
the response_format each AGENT_SIGNALS_STRUCTURED_ANSWERS mode sends, with the calling prompt's slim schema;
answers cut at max_tokens asked again with a larger budget, then failed and recorded; fenced and malformed
answers over HTTP; the mode recorded per run."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent_signals.adapters import llm, providers
from agent_signals.adapters.structured import LIMIT_KEYWORDS, answer_mode, slim_schema
from agent_signals.config import Settings
from agent_signals.core.prompting.answers import InvalidAnswer, parse_extract_actions, parse_summary_answer
from agent_signals.core.prompting.prompts import FAMILY_VERSIONS
from agent_signals.core.retries import TRANSIENT_MODEL_FAULTS
from agent_signals.flows.extract import extract_signals
from tests import http_model
from tests.builders import conversation, load_conversations
from tests.fakes import user_texts

PROMPT = [
    {"role": "system", "content": "Answer in JSON."},
    {"role": "user", "content": "<messages></messages>"},
]
EMPTY = json.dumps({"actions": []})


@pytest.fixture
def serve_model():
    """serve_model(respond, model, **values): the server, and settings (with these values) that point the
    pipeline's model at it."""
    servers = []

    def start(
        respond: http_model.Respond, model: str = "openai/some-name", **values: object
    ) -> tuple[http_model.HttpModel, Settings]:
        server = http_model.serve(respond)
        servers.append(server)
        running = server.__enter__()
        return running, Settings(**(running.settings(model=model) | {"retry_backoff_s": 0} | values))

    yield start
    for server in reversed(servers):
        server.__exit__(None, None, None)


def complete(settings: Settings, family: str = "extract", max_tokens: int | None = None) -> llm.Completion:
    return asyncio.run(llm.complete(PROMPT, settings, family=family, max_tokens=max_tokens))


def sent_format(server: http_model.HttpModel) -> dict | None:
    (_path, body), *_ = server.requests
    return body.get("response_format")


def schema_file(settings: Settings, family: str, version: str | None = None) -> dict:
    version = version or (settings.model.prompt_version if family == "extract" else FAMILY_VERSIONS[family])
    return json.loads((settings.prompts_dir / family / f"{version}.schema.json").read_text())


def keys(value: object) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


# ---------------------------------------------------------------------------------------------------
# The response_format each mode sends


@pytest.mark.unit
@pytest.mark.parametrize(
    ("family", "version", "answer"),
    [("extract", "v1", EMPTY), ("extract", "v2", EMPTY), ("reconcile", "v1", '{"decisions": []}'),
     ("summarize", "v1", '{"summary": "A pilot."}')],
)  # fmt: skip
def test_auto_sends_the_calling_prompts_slim_schema_to_a_model_litellm_knows_takes_one(
    serve_model, family, version, answer
):
    server, settings = serve_model(
        lambda _p, _b: http_model.chat(answer), "openai/gpt-4o-mini", prompt_version=version
    )
    assert answer_mode(settings) == "json_schema"
    assert complete(settings, family).text == answer
    sent = sent_format(server)
    assert sent == {"type": "json_schema", "json_schema": {
        "name": f"{family}_answer", "schema": slim_schema(schema_file(settings, family, version)), "strict": False}}  # fmt: skip
    assert not keys(sent) & LIMIT_KEYWORDS  # llama.cpp's grammar converter dies on them


@pytest.mark.unit
@pytest.mark.parametrize(
    ("mode", "model", "expected"),
    [("auto", "openai/some-name", {"type": "json_object"}),  # litellm: response_format yes, schemas unknown
     ("json_object", "openai/gpt-4o-mini", {"type": "json_object"}),
     ("none", "openai/gpt-4o-mini", None),
     ("json_schema", "openai/some-name", "schema"),
     ("json_object_schema", "openai/some-name", "object_schema")],  # llama-cpp-python's server's form
)  # fmt: skip
def test_each_setting_sends_its_response_format(serve_model, mode, model, expected):
    server, settings = serve_model(lambda _p, _b: http_model.chat(EMPTY), model, structured_answers=mode)
    complete(settings)
    sent = sent_format(server)
    if expected == "schema":
        assert sent["type"] == "json_schema" and sent["json_schema"]["schema"]["title"] == "ExtractAnswer"
    elif expected == "object_schema":
        assert sent == {"type": "json_object", "schema": slim_schema(schema_file(settings, "extract"))}
    else:
        assert sent == expected
    assert answer_mode(settings) == (mode if mode != "auto" else "json_object")


@pytest.mark.unit
def test_the_offline_model_takes_no_response_format_and_still_answers():
    settings = Settings()  # offline/rules
    providers.register_offline(settings)
    assert answer_mode(settings) == "none"
    completion = asyncio.run(llm.complete(PROMPT, settings))
    assert parse_extract_actions(completion.text).actions == []


@pytest.mark.unit
def test_the_slim_schema_drops_only_the_limits():
    schema = {
        "type": "object",
        "properties": {"pattern": {"type": "string", "pattern": "^a$", "maxLength": 3},
                       "items": {"type": "array", "items": {"type": "string", "minLength": 1},
                                 "maxItems": 5, "minItems": 1}},
        "$defs": {"maxLength": {"type": "integer"}},
        "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}],
    }  # fmt: skip
    assert slim_schema(schema) == {
        "type": "object",
        "properties": {"pattern": {"type": "string"},
                       "items": {"type": "array", "items": {"type": "string"}}},
        "$defs": {"maxLength": {"type": "integer"}},
        "anyOf": [{"type": "string"}, {"type": "null"}],
    }  # fmt: skip
    # the limits are still enforced when the answer is parsed
    with pytest.raises(InvalidAnswer, match="actions"):
        parse_extract_actions(json.dumps({"actions": [{}] * 51}))


# ---------------------------------------------------------------------------------------------------
# Answers cut at max_tokens


def cut_below(tokens: int, answer: str = EMPTY) -> http_model.Respond:
    """Cut every answer whose max_tokens is under `tokens`."""
    return lambda _p, body: (
        http_model.cut('{"actions": [') if body["max_tokens"] < tokens else http_model.chat(answer)
    )


@pytest.mark.unit
def test_a_cut_answer_is_asked_again_with_twice_the_budget_and_both_calls_are_counted(serve_model):
    server, settings = serve_model(cut_below(2048))
    completion = complete(settings)
    assert completion.text == EMPTY and not completion.truncated
    assert [body["max_tokens"] for _p, body in server.requests] == [1024, 2048]
    assert (completion.prompt_tokens, completion.completion_tokens, completion.attempts) == (20, 10, 2)


@pytest.mark.unit
@pytest.mark.parametrize("written", ['{"actions": [{"action": "cre', ""])
def test_an_answer_cut_again_fails_as_truncated_with_its_usage(serve_model, written):
    server, settings = serve_model(lambda _p, _b: http_model.cut(written))
    with pytest.raises(llm.TruncatedAnswer) as failed:
        complete(settings)
    assert failed.value.kind == "truncated" and "max_tokens=1024 and again at 2048" in str(failed.value)
    # both calls' usage, and an empty cut body is not an empty answer retried as a fault of the model
    assert failed.value.spent.completion_tokens == 10 and len(server.requests) == 2
    # the user's messages made the prompt ask for too much: it counts against the user (backoff, set-aside)
    assert failed.value.kind not in TRANSIENT_MODEL_FAULTS


@pytest.mark.unit
def test_no_larger_budget_than_the_models_max_output_tokens_is_asked(serve_model):
    server, settings = serve_model(
        cut_below(10**9), "openai/gpt-4o-mini"
    )  # litellm: 16384 output tokens at most
    with pytest.raises(llm.TruncatedAnswer):
        complete(settings, max_tokens=16384)
    assert [body["max_tokens"] for _p, body in server.requests] == [16384]
    assert llm.larger_budget("openai/gpt-4o-mini", 10000) == 16384
    assert llm.larger_budget("openai/some-name", 1024) == 2048


# ---------------------------------------------------------------------------------------------------
# Fenced and malformed answers over HTTP


@pytest.mark.unit
def test_an_answer_in_a_markdown_fence_is_accepted(serve_model):
    fenced = '```json\n{"actions": [{"action": "skip", "reason": "nothing durable"}]}\n```'
    _server, settings = serve_model(lambda _p, _b: http_model.chat(fenced))
    (action,) = parse_extract_actions(complete(settings).text).actions
    assert action.action is not None and action.action.reason == "nothing durable"
    _server, settings = serve_model(lambda _p, _b: http_model.chat('```\n{"summary": "A pilot."}\n```'))
    assert parse_summary_answer(complete(settings, "summarize").text).summary == "A pilot."


@pytest.mark.unit
def test_a_malformed_answer_arrives_as_written_and_is_invalid(serve_model):
    _server, settings = serve_model(lambda _p, _b: http_model.chat('{"actions": [{"action": "skip",}]}'))
    with pytest.raises(InvalidAnswer, match="not JSON"):
        parse_extract_actions(complete(settings).text)


# ---------------------------------------------------------------------------------------------------
# End to end


def create(content: str, quote: str) -> dict:
    return {"action": "create", "content": content, "tier": "core", "kind": "role",
            "evidence": [{"message": "m1", "quote": quote}]}  # fmt: skip


FACTS = {"I bake bread for a living": "Works as a baker", "I'm a pilot": "Works as a pilot",
         "I teach maths": "Works as a maths teacher"}  # fmt: skip


def answer(body: dict) -> str:
    text = user_texts(body["messages"])
    return json.dumps({"actions": [create(fact, quote) for quote, fact in FACTS.items() if quote in text]})


def first_run(_path: str, body: dict) -> tuple[int, dict]:
    """Tina's answer is always cut, Fred's is fenced, Mal's is not JSON."""
    text = user_texts(body["messages"])
    if "I bake bread" in text:
        return http_model.cut(answer(body)[:20])
    if "I'm a pilot" in text:
        return http_model.chat(f"```json\n{answer(body)}\n```")
    return http_model.chat(answer(body)[:-2])


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_cut_fenced_and_malformed_answers_over_http_and_the_mode_recorded(conn, settings, serve_model):
    load_conversations(conn, settings, conversation("c1", "tina", [("user", "I bake bread for a living")]),
                       conversation("c2", "fred", [("user", "I'm a pilot")]),
                       conversation("c3", "mal", [("user", "I teach maths")]))  # fmt: skip
    server, over_http = serve_model(
        first_run, database_url=settings.database.url, summaries=False, failing_user_backoff_s=0
    )
    first = asyncio.run(extract_signals(kind="manual", settings=over_http))
    assert first["answer_mode"] == "json_object" and first["actions"] == {"created": 1}
    assert first["failures"] == 2 and first["llm_calls"] == 3  # tina's call was asked twice
    assert {body["response_format"]["type"] for _p, body in server.requests} == {"json_object"}
    assert len(server.requests) == 4
    failures = conn.execute(
        "select user_id, stage, error_kind, counted, messages from ops.failures order by user_id"
    ).fetchall()
    assert [f[:4] for f in failures] == [("mal", "validate", "invalid_answer", True),
                                         ("tina", "extract", "truncated", True)]  # fmt: skip
    assert failures[1][4] == [{"conversation_id": "c1", "message_id": "00001"}]
    assert conn.execute("select answer_mode from ops.runs").fetchall() == [("json_object",)]

    # nothing of the failed users' messages was consumed: read again once the answers fit
    server.respond = lambda _p, body: http_model.chat(answer(body))
    second = asyncio.run(extract_signals(kind="manual", settings=over_http))
    assert second["actions"] == {"created": 2} and second["llm_calls"] == 2
    signals = conn.execute("select user_id, content from signals.signals order by user_id").fetchall()
    assert signals == [("fred", "Works as a pilot"), ("mal", "Works as a maths teacher"),
                       ("tina", "Works as a baker")]  # fmt: skip
