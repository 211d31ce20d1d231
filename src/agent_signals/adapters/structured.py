"""How the model is asked for a JSON answer (AGENT_SIGNALS_STRUCTURED_ANSWERS): with the prompt family's answer
schema where litellm says the model takes one (`json_schema`), else in JSON mode (`json_object`), else by the
prompt alone (`none`). `json_object_schema` (never chosen by `auto`) is JSON mode carrying the schema, the form
llama-cpp-python's server takes for constrained decoding (it refuses `json_schema`). Whatever the mode,
answers.py parses and validate.py checks every answer the same way.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import litellm

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import prompt_set

MODES = ("json_schema", "json_object_schema", "json_object", "none")
# Limits left out of the schema sent to the provider: llama.cpp's grammar converter fails on them (a large
# maxLength or maxItems expands into a grammar it cannot parse, and the server dies); validation enforces them.
LIMIT_KEYWORDS = frozenset({"maxLength", "minLength", "maxItems", "minItems", "pattern"})
_NAMED = frozenset({"properties", "$defs", "definitions", "patternProperties"})  # maps of names to schemas


def answer_mode(settings: Settings) -> str:
    """The mode this configuration uses (the same for every call of a run)."""
    if settings.model.structured_answers != "auto":
        return settings.model.structured_answers
    return _auto_mode(settings.model.name)


@cache
def _auto_mode(model: str) -> str:
    """What litellm knows of the model (its local model map, no network call): unknown means no. A custom
    provider (the offline one) is unknown whether or not it is registered yet: litellm answers a generic
    OpenAI parameter list for a registered one, which would make the mode depend on the order of calls."""
    if model.partition("/")[0] in {entry["provider"] for entry in litellm.custom_provider_map or []}:
        return "none"
    try:
        if litellm.supports_response_schema(model=model):
            return "json_schema"
    except Exception:  # a model string litellm cannot parse
        pass
    try:
        params = litellm.get_supported_openai_params(model=model) or []
    except Exception:
        params = []
    return "json_object" if "response_format" in params else "none"


def slim_schema(schema: Any) -> Any:
    """The schema without LIMIT_KEYWORDS (a property that happens to be named like one is kept)."""
    if isinstance(schema, list):
        return [slim_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: {name: slim_schema(sub) for name, sub in value.items()}
        if key in _NAMED and isinstance(value, dict)
        else slim_schema(value)
        for key, value in schema.items()
        if key not in LIMIT_KEYWORDS
    }


def response_format(settings: Settings, family: str) -> dict | None:
    """The `response_format` of a call answering prompt `family` (extract, reconcile, summarize); None: none."""
    mode = answer_mode(settings)
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "none":
        return None
    schema = slim_schema(prompt_set(settings, family).schema)
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": f"{family}_answer", "schema": schema, "strict": False},
    }
