"""What litellm will make of a model string, known without importing litellm: the provider it sends the string
to, and the API key variables that provider needs.

Why not ask litellm: importing it costs about 3 s (its module tree is some 1,800 modules, the OpenAI SDK and
httpx among them), and the settings are checked when they load, before any command runs, an idle `run`
included, which must end within 2 s and never import litellm. So the provider names are read from litellm's
installed files, found with importlib.util.find_spec (which locates a package without running it): its
LlmProviders enum (litellm.provider_list) from the source of litellm/types/utils.py, its OpenAI-compatible
providers from llms/openai_like/providers.json, and the provider of a model named without one from its local
model map (the file litellm reads with LITELLM_LOCAL_MODEL_COST_MAP=True). The keys come from
provider_keys.toml, a copy of litellm.validate_environment's table. tests/test_settings_load.py compares all
of it with litellm itself, so an upgrade of litellm that changes them fails there, not in a run."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path

# the built-in offline models' provider (adapters/providers.py registers it with litellm)
OFFLINE_PROVIDER = "offline"
_ENUM = "class LlmProviders(str, Enum):"
_MEMBER = re.compile(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"')


@cache
def _litellm_dir() -> Path:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("litellm is not installed")
    return Path(spec.submodule_search_locations[0])


@cache
def providers() -> frozenset[str]:
    """The provider names litellm routes a `provider/model` string by."""
    source = (_litellm_dir() / "types" / "utils.py").read_text(encoding="utf-8")
    if _ENUM not in source:
        raise RuntimeError(f"litellm's provider list is not in {_litellm_dir() / 'types' / 'utils.py'}")
    names = set()
    for line in source.split(_ENUM, 1)[1].splitlines()[1:]:
        if line.strip() and not line[0].isspace():  # the end of the class body
            break
        if member := _MEMBER.match(line):
            names.add(member[1])
    compatible = json.loads((_litellm_dir() / "llms" / "openai_like" / "providers.json").read_text())
    return frozenset(names | set(compatible))


@cache
def _model_map() -> dict[str, str]:
    """litellm's local model map: a model's name to its provider."""
    raw = json.loads((_litellm_dir() / "model_prices_and_context_window_backup.json").read_text())
    return {
        name: entry["litellm_provider"]
        for name, entry in raw.items()
        if isinstance(entry, dict) and isinstance(entry.get("litellm_provider"), str)
    }


def provider_of(model: str) -> str | None:
    """The provider litellm sends `model` to (None: none it knows): the prefix before the first `/` when it
    names a provider, else the provider of a model litellm's map knows by its whole name (`gpt-4o-mini`)."""
    prefix, slash, _name = model.partition("/")
    if slash and prefix == OFFLINE_PROVIDER:
        return prefix
    if slash and prefix in providers():
        return prefix
    return _model_map().get(model)


@cache
def _keys() -> dict[str, tuple[str, ...]]:
    with Path(__file__).with_name("provider_keys.toml").open("rb") as file:
        return {provider: tuple(names) for provider, names in tomllib.load(file).items()}


def needed_keys(provider: str) -> tuple[str, ...]:
    """The variables of which one must hold the provider's API key (empty: it needs none, or more than a key)."""
    return _keys().get(provider, ())


def given(name: str, environ: Mapping[str, str] = os.environ) -> bool | None:
    """Whether the variable holds a value: True, False when it is set but blank, None when it is unset."""
    value = environ.get(name)
    return None if value is None else bool(value.strip())
