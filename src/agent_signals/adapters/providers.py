"""What litellm's providers need besides the model string: the built-in offline provider, registered (and
its package imported) only when a configured model string names it; the provider settings sent with every
call (AGENT_SIGNALS_API_BASE, _API_KEY, _EXTRA_HEADERS); and, for providers that cache a prompt only when
asked (Anthropic), a cache hint on the fixed system prompt."""

from __future__ import annotations

import importlib

import litellm

from agent_signals.config import OFFLINE_MODEL, Settings

OFFLINE_PREFIX = OFFLINE_MODEL.split("/", 1)[0] + "/"  # model strings the built-in offline models answer


def register_offline(settings: Settings, latency_s: float = 0.0) -> bool:
    """Route `offline/...` model strings to the built-in offline models when the chat or the embedding
    model names one (idempotent); returns whether it did. The offline package is imported only then, so
    a process configured with real models never loads it."""
    if not any(m.startswith(OFFLINE_PREFIX) for m in (settings.model.name, settings.model.embedding_model)):
        return False
    provider = importlib.import_module("agent_signals_offline.provider")
    name = provider.PROVIDER
    handler = provider.OfflineRules(latency_s=latency_s)
    litellm.custom_provider_map = [p for p in litellm.custom_provider_map if p["provider"] != name] + [
        {"provider": name, "custom_handler": handler}
    ]
    free = {
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "cache_creation_input_token_cost": 0.0,
        "cache_read_input_token_cost": 0.0,
        "litellm_provider": name,
    }
    models = {
        OFFLINE_MODEL: {
            "max_tokens": 8192,
            "max_input_tokens": 128000,
            "max_output_tokens": 8192,
            **free,
            "mode": "chat",
        }
    }
    if settings.model.embedding_model.startswith(OFFLINE_PREFIX):
        models[settings.model.embedding_model] = {"max_input_tokens": 8192, **free, "mode": "embedding"}
    litellm.register_model(models)
    return True


def provider_kwargs(settings: Settings) -> dict:
    """The provider settings litellm takes per call, only those set (unset: litellm's own, from the
    provider's environment variables)."""
    kwargs: dict = {}
    if settings.model.api_base:
        kwargs["api_base"] = settings.model.api_base
    if settings.model.api_key is not None:
        kwargs["api_key"] = settings.model.api_key.get_secret_value()
    if settings.model.extra_headers:
        kwargs["extra_headers"] = dict(settings.model.extra_headers)
    return kwargs


# Providers that cache a prompt's prefix only where the request marks it (OpenAI, DeepSeek and others cache
# long prefixes by themselves; Gemini's context caching is a separate API).
CACHE_CONTROL_PROVIDERS = frozenset({"anthropic"})


def _provider(model: str) -> str:
    try:
        return litellm.get_llm_provider(model)[1]
    except Exception:  # a model string litellm cannot place: its prefix, if any
        return model.partition("/")[0] if "/" in model else ""


def with_cache_hints(messages: list[dict], model: str) -> list[dict]:
    """The messages as sent to `model`: for a provider in CACHE_CONTROL_PROVIDERS, the system prompt (fixed,
    first) as a text block marked for the prompt cache; for the others, the messages unchanged."""
    if _provider(model) not in CACHE_CONTROL_PROVIDERS:
        return messages
    return [
        {**m, "content": [{"type": "text", "text": m["content"], "cache_control": {"type": "ephemeral"}}]}
        if m.get("role") == "system" and isinstance(m.get("content"), str)
        else m
        for m in messages
    ]
