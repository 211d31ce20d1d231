"""The only fake in the suite: a scripted model behind the same litellm seam production uses."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import litellm
from litellm import CustomLLM, ModelResponse

from agent_signals.core.prompting.prompts import is_extract_prompt, is_summarize_prompt
from agent_signals_offline.provider import answer, fill_response

SCRIPTED_MODEL = "scripted/test"

Script = Callable[[list[dict]], "str | BaseException"]


class ScriptedModel(CustomLLM):
    """Records every prompt; answers with `script(prompt)` (a text, or an exception to raise), by default
    with the offline model's answer. Summary prompts go to the offline model unless `script_summaries`."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[dict]] = []
        self.script: Script | None = None
        self.script_summaries = False
        self._lock = threading.Lock()

    def _answer(self, model: str, messages: list[dict], model_response: ModelResponse) -> ModelResponse:
        with self._lock:
            self.calls.append([dict(m) for m in messages])
        scripted = self.script and (self.script_summaries or not is_summarize_prompt(messages))
        result = self.script(messages) if scripted else answer(messages)
        if isinstance(result, BaseException):
            raise result
        return fill_response(model_response, model, messages, result)

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer(model, messages, kwargs["model_response"])

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer(model, messages, kwargs["model_response"])

    @property
    def extraction_calls(self) -> list[list[dict]]:
        return [call for call in self.calls if is_extract_prompt(call)]

    def reset(self) -> None:
        self.calls.clear()
        self.script = None
        self.script_summaries = False


def register(model: ScriptedModel, price_per_token: float = 1e-6) -> None:
    litellm.custom_provider_map = [p for p in litellm.custom_provider_map if p["provider"] != "scripted"] + [
        {"provider": "scripted", "custom_handler": model}
    ]
    litellm.register_model(
        {
            SCRIPTED_MODEL: {
                "max_tokens": 8192,
                "input_cost_per_token": price_per_token,
                "output_cost_per_token": price_per_token,
                "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0,
                "litellm_provider": "scripted",
                "mode": "chat",
            }
        }
    )


def user_texts(prompt: list[dict]) -> str:
    return next(m["content"] for m in prompt if m["role"] == "user")
