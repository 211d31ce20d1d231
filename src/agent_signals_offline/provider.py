"""The offline model as a litellm custom provider: `offline/rules` reads the rendered extraction prompt,
answers the same JSON a real model would, and reports usage counted with litellm's token counter."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import litellm
from litellm import CustomLLM, EmbeddingResponse, ModelResponse
from litellm.types.utils import Usage

from agent_signals.config import OFFLINE_MODEL
from agent_signals.core.prompting.extract_calls import count_prompt
from agent_signals.core.prompting.prompts import (
    SummaryLine,
    is_reconcile_prompt,
    is_summarize_prompt,
    parse_extract_prompt,
    parse_reconcile_prompt,
    parse_summarize_prompt,
)
from agent_signals.core.prompting.summary_text import summary_from_signals
from agent_signals_offline import reconcile
from agent_signals_offline.embed import embed

PROVIDER = OFFLINE_MODEL.split("/", 1)[0]  # "offline": the model strings it answers start with "offline/"


def fill_response(
    model_response: ModelResponse, model: str, messages: list[dict], text: str
) -> ModelResponse:
    """Fill the response object litellm handed us (returning a new one would break its cost tracking)."""
    model_response.choices[0].message.content = text  # type: ignore[union-attr]
    model_response.choices[0].finish_reason = "stop"
    model_response.model = model
    model_response.created = int(time.time())
    prompt_tokens = count_prompt(model, messages)  # litellm's count, the instructions counted once
    completion_tokens = litellm.token_counter(model=model, text=text, count_response_tokens=True)
    model_response.usage = Usage(  # type: ignore[attr-defined]
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    return model_response


def answer(messages: list[dict]) -> str:
    """The offline model's answer to a rendered prompt of any family it knows."""
    if is_summarize_prompt(messages):
        return _json({"summary": summary_from_signals(parse_summarize_prompt(messages))})
    if is_reconcile_prompt(messages):
        core, own, cap = parse_reconcile_prompt(messages)
        return _json({"decisions": reconcile.decide(core, own, cap)})
    from agent_signals_offline.rules.extract import extract  # the extraction rules load on first use
    from agent_signals_offline.rules.time_and_scope import add_fields, asks_for

    prompt_messages, known, kinds = parse_extract_prompt(messages)
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    actions = add_fields(extract(prompt_messages, known, kinds), prompt_messages, known, asks_for(system))
    if not actions:
        return _json({"actions": actions})
    old = {m.handle for m in prompt_messages if m.old}
    return _json({"actions": actions, "summary": summary_from_signals(_after(known, actions, old))})


def _after(known: list, actions: list[dict], old: set[str]) -> list[SummaryLine]:
    """The user's signals as they will be after the actions, in summary order; a contextual fact cited only
    from old messages is archived at once, so it is left out."""
    signals = {k.handle: (k.content, k.tier, k.kind, k.origin) for k in known}
    for i, action in enumerate(actions):
        key = action.get("signal") or f"new{i}"
        if action["action"] == "end" or action.get("scope") == "agent":  # ended, or one agent's: not in it
            signals.pop(key, None)
            continue
        cited = {e["message"] for e in action.get("evidence", [])}
        if action["tier"] == "contextual" and cited and cited <= old:
            signals.pop(key, None)
            continue
        signals[key] = (action["content"], action["tier"], action["kind"], "inferred")
    lines = [
        SummaryLine("manual" if origin == "manual" else tier, kind, content)
        for content, tier, kind, origin in signals.values()
    ]
    order = {"manual": 0, "core": 1, "contextual": 2}
    return sorted(lines, key=lambda line: order[line.bucket])


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def fill_embedding(model_response: EmbeddingResponse, model: str, inputs: list) -> EmbeddingResponse:
    """`offline/hash-<dim>`: the dimension is part of the model name."""
    dim = int(model.rsplit("-", 1)[-1])
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    model_response.data = [
        {"object": "embedding", "index": i, "embedding": embed(text, dim)} for i, text in enumerate(texts)
    ]
    model_response.model = model
    tokens = sum(litellm.token_counter(model=model, text=text) for text in texts)
    model_response.usage = Usage(prompt_tokens=tokens, completion_tokens=0, total_tokens=tokens)  # type: ignore[attr-defined]
    return model_response


class OfflineRules(CustomLLM):
    """`offline/rules`; `latency_s` simulates a remote model's latency (benchmarks only)."""

    def __init__(self, latency_s: float = 0.0) -> None:
        super().__init__()
        self.latency_s = latency_s

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        if self.latency_s:
            time.sleep(self.latency_s)
        return fill_response(kwargs["model_response"], model, messages, answer(messages))

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return fill_response(kwargs["model_response"], model, messages, answer(messages))

    def embedding(
        self, model: str, input: list, model_response: EmbeddingResponse, *args: Any, **kwargs: Any
    ):
        return fill_embedding(model_response, model, input)

    async def aembedding(
        self, model: str, input: list, model_response: EmbeddingResponse, *args: Any, **kwargs: Any
    ):
        return fill_embedding(model_response, model, input)
