"""The checks of settings that take more than the value's own type, made when the settings load
(config.load_settings), before any command does anything and before Prefect or litellm is imported: the
schedule's cron and time zone, read as Prefect will read them; the prompt version, against the files of
prompts/; each model's provider and the API key it needs. Each failure is one SettingsError naming the
variable, with a hint. `eval --model` and `--prompt-version` are checked by the same functions."""

from __future__ import annotations

import importlib.util
import os
import sys
import zoneinfo
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from agent_signals import model_names
from agent_signals.errors import SettingsError

# a prompt version's files: prompts/<family>/<version>.<part>
PROMPT_PARTS = ("system.j2", "user.j2", "schema.json")


@cache
def _croniter() -> Any:
    """Prefect's croniter (prefect/_vendor/croniter, what its CronSchedule validates a cron with), loaded from
    its files under a name of its own: importing it the usual way imports Prefect first, over a second."""
    spec = importlib.util.find_spec("prefect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("prefect is not installed")
    folder = Path(spec.submodule_search_locations[0]) / "_vendor" / "croniter"
    name = "agent_signals_prefect_croniter"
    found = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if found is None or found.loader is None:
        raise RuntimeError(f"Prefect's croniter is not in {folder}")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    found.loader.exec_module(module)
    return module.croniter


def cron(variable: str, value: str) -> None:
    """As Prefect's CronSchedule (prefect._internal.schemas.validators.validate_cron_string): croniter's
    syntax, without its random and hashed fields (R, H)."""
    if not _croniter().is_valid(value) or any(f.casefold() in ("r", "h") for f in value.split()):
        raise SettingsError(
            f"{variable}={value!r} is not a cron expression",
            hint="five fields, minute hour day month weekday (e.g. '0 */6 * * *'), or unset it for "
            "deploy/prefect.yaml's schedule",
        )


def timezone(variable: str, value: str) -> None:
    """As Prefect's CronSchedule: a name of the IANA database Python's zoneinfo reads."""
    if value not in zoneinfo.available_timezones():
        raise SettingsError(
            f"{variable}={value!r} is not a time zone",
            hint="an IANA time zone name (e.g. UTC, Europe/Paris, America/New_York), or unset it for "
            "deploy/prefect.yaml's",
        )


def prompt_files(prompts_dir: Path, family: str, version: str) -> list[Path]:
    return [prompts_dir / family / f"{version}.{part}" for part in PROMPT_PARTS]


def prompt_versions(prompts_dir: Path, family: str) -> list[str]:
    """The versions of a prompt family with a system template, in order (v1, v2, ..., v10)."""
    found = {p.name.split(".")[0] for p in (prompts_dir / family).glob("v*.system.j2")}
    return sorted(found, key=lambda v: (len(v), v))


def prompt_version(variable: str, prompts_dir: Path, version: str) -> None:
    """The extraction prompt `version` has its three files in prompts/extract."""
    missing = [f.name for f in prompt_files(prompts_dir, "extract", version) if not f.is_file()]
    if missing:
        have = ", ".join(prompt_versions(prompts_dir, "extract")) or "none"
        raise SettingsError(
            f"{variable}={version!r} is not a prompt version: {', '.join(missing)} missing in "
            f"{prompts_dir / 'extract'}",
            hint=f"the versions there: {have}",
        )


def model(
    variable: str,
    value: str,
    api_key: SecretStr | None,
    environ: Mapping[str, str] = os.environ,
    need_key: bool = True,
) -> None:
    """litellm knows the model's provider, and (`need_key`) the API key that provider needs is given: in
    AGENT_SIGNALS_API_KEY (`api_key`), else in the provider's variable, not blank. The offline models, and
    providers that need no key or other variables than a key (model_names.needed_keys), pass without one."""
    provider = model_names.provider_of(value)
    if provider is None:
        raise SettingsError(
            f"{variable}={value!r} names no model provider litellm knows",
            hint="name the provider first, e.g. openai/gpt-4o-mini or anthropic/claude-sonnet-4-20250514 "
            "(litellm's providers: https://docs.litellm.ai/docs/providers)",
        )
    keys = model_names.needed_keys(provider)
    if not keys or not need_key:
        return
    names = " or ".join(keys)
    if api_key is not None:
        if api_key.get_secret_value().strip():
            return
        raise SettingsError(
            f"{variable}={value!r} needs an API key, and AGENT_SIGNALS_API_KEY is set but empty",
            hint=f"give the key in AGENT_SIGNALS_API_KEY, or unset it to use {names}",
        )
    states = [model_names.given(key, environ) for key in keys]
    if any(states):
        return
    raise SettingsError(
        f"{variable}={value!r} needs {names}, which is {'set but empty' if False in states else 'not set'}",
        hint=f"set {names} (or AGENT_SIGNALS_API_KEY), or name another model in {variable}",
    )
