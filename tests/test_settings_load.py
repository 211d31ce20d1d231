"""Settings are checked whole when they load (issue 33, point 2): a cron or time zone Prefect would refuse, a
prompt version with no files, a model string litellm cannot route, a key unset or blank for a provider that
needs one, each stops any command at once with one `error:` line naming the variable, a `hint:` and exit 2,
before Prefect or litellm is imported (`python -X importtime` lists every module the process imported).

The checks read what Prefect and litellm will read without importing them (setting_checks.py,
model_names.py); the unit tests here compare them with Prefect and litellm themselves, so an upgrade that
changes either fails here rather than in a run."""

from __future__ import annotations

import os

import pytest
from pydantic import SecretStr, ValidationError

from agent_signals import model_names, setting_checks
from agent_signals.config import SettingsError
from tests.imports import traced

DATASET = "eval/workplace-signals.json"
NOWHERE = "postgresql://nobody@127.0.0.1:1/nothing"  # a command that got past its settings fails otherwise


def clean_env(**values: str) -> dict[str, str]:
    """The caller's environment without settings, provider keys or a Prefect API, plus `values`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AGENT_SIGNALS_", "PREFECT_API")) and not k.endswith(("_API_KEY", "_AUTH_TOKEN"))
    }
    return env | {"DATABASE_URL": NOWHERE} | values


BAD = {
    "cron": (["serve"], {"AGENT_SIGNALS_SCHEDULE_CRON": "bogus"},
             "AGENT_SIGNALS_SCHEDULE_CRON='bogus' is not a cron expression"),
    "hashed cron": (["serve"], {"AGENT_SIGNALS_SCHEDULE_CRON": "H 0 * * *"},
                    "AGENT_SIGNALS_SCHEDULE_CRON='H 0 * * *' is not a cron expression"),
    "time zone": (["serve"], {"AGENT_SIGNALS_SCHEDULE_TIMEZONE": "Mars/Base"},
                  "AGENT_SIGNALS_SCHEDULE_TIMEZONE='Mars/Base' is not a time zone"),
    "prompt version": (["run"], {"AGENT_SIGNALS_PROMPT_VERSION": "v9"},
                       "AGENT_SIGNALS_PROMPT_VERSION='v9' is not a prompt version"),
    "model": (["run"], {"AGENT_SIGNALS_MODEL": "gpt4o"},
              "AGENT_SIGNALS_MODEL='gpt4o' names no model provider litellm knows"),
    "embedding model": (["run"], {"AGENT_SIGNALS_EMBEDDING_MODEL": "nowhere/embedder"},
                        "AGENT_SIGNALS_EMBEDDING_MODEL='nowhere/embedder' names no model provider"),
    "key unset": (["run"], {"AGENT_SIGNALS_MODEL": "openai/gpt-4o-mini"},
                  "AGENT_SIGNALS_MODEL='openai/gpt-4o-mini' needs OPENAI_API_KEY, which is not set"),
    "key empty": (["run"], {"AGENT_SIGNALS_MODEL": "openai/gpt-4o-mini", "OPENAI_API_KEY": ""},
                  "AGENT_SIGNALS_MODEL='openai/gpt-4o-mini' needs OPENAI_API_KEY, which is set but empty"),
    "setting's key empty": (["run"], {"AGENT_SIGNALS_MODEL": "anthropic/claude-sonnet-4-20250514",
                                      "AGENT_SIGNALS_API_KEY": "", "ANTHROPIC_API_KEY": "sk-ant"},
                            "AGENT_SIGNALS_MODEL='anthropic/claude-sonnet-4-20250514' needs an API key, and "
                            "AGENT_SIGNALS_API_KEY is set but empty"),
    "eval --model": (["eval", "--dataset", DATASET, "--model", "openai/gpt-4o-mini"], {},
                     "--model='openai/gpt-4o-mini' needs OPENAI_API_KEY, which is not set"),
    "eval --prompt-version": (["eval", "--dataset", DATASET, "--prompt-version", "v9"], {},
                              "--prompt-version='v9' is not a prompt version"),
    "replay --prompt-version": (["replay", "--prompt-version", "v9", "--since", "2026-01-01"], {},
                                "--prompt-version='v9' is not a prompt version"),
}  # fmt: skip


@pytest.mark.unit
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_setting_stops_the_command_in_one_line_before_prefect_or_litellm(case):
    args, values, error = BAD[case]
    done = traced(*args, env=clean_env(**values))
    said = (done.stderr + done.stdout).splitlines()
    assert done.returncode == 2, said
    assert said[0].startswith(f"error: {error}"), said
    assert len(said) == 2 and said[1].startswith("hint: "), said
    assert not done.heavy


@pytest.mark.unit
def test_a_key_is_given_by_the_api_key_setting_or_a_providers_variable_that_is_not_blank():
    check = setting_checks.model
    check("V", "openai/gpt-4o-mini", SecretStr("sk-1"), environ={})  # AGENT_SIGNALS_API_KEY stands for any
    check("V", "openai/gpt-4o-mini", None, environ={"OPENAI_API_KEY": "sk-1"})
    check("V", "gpt-4o-mini", None, environ={"OPENAI_API_KEY": "sk-1"})  # openai's, by litellm's model map
    check("V", "anthropic/claude-sonnet-4-20250514", None, environ={"ANTHROPIC_AUTH_TOKEN": "t"})  # either
    for needs_none in ("offline/rules", "offline/hash-256", "hosted_vllm/qwen", "ollama/llama3"):
        check("V", needs_none, None, environ={})
    with pytest.raises(SettingsError, match="needs OPENAI_API_KEY, which is not set"):
        check("V", "openai/gpt-4o-mini", None, environ={})
    with pytest.raises(SettingsError, match="needs OPENAI_API_KEY, which is set but empty"):
        check("V", "openai/gpt-4o-mini", None, environ={"OPENAI_API_KEY": "  "})
    with pytest.raises(SettingsError, match="AGENT_SIGNALS_API_KEY is set but empty") as caught:
        check("V", "openai/gpt-4o-mini", SecretStr(""), environ={"OPENAI_API_KEY": "sk-1"})
    assert caught.value.exit_code == 2


CRONS = ["0 */6 * * *", "*/15 9-17 * * 1-5", "@daily", "0 0 * * * 30", "0 0 31 2 *",
         "bogus", "* * * *", "61 * * * *", "H * * * *", "0 r * * *", "@fortnightly"]  # fmt: skip
ZONES = ["UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Mars/Base", "utc", "+02:00"]


@pytest.mark.unit
@pytest.mark.parametrize("cron", CRONS)
def test_a_cron_is_refused_exactly_when_prefects_schedule_refuses_it(cron):
    from prefect.client.schemas.schedules import CronSchedule

    try:
        CronSchedule(cron=cron)
        prefect_takes = True
    except ValidationError:
        prefect_takes = False
    try:
        setting_checks.cron("AGENT_SIGNALS_SCHEDULE_CRON", cron)
        we_take = True
    except SettingsError:
        we_take = False
    assert we_take == prefect_takes


@pytest.mark.unit
@pytest.mark.parametrize("zone", ZONES)
def test_a_time_zone_is_refused_exactly_when_prefects_schedule_refuses_it(zone):
    from prefect.client.schemas.schedules import CronSchedule

    try:
        CronSchedule(cron="0 * * * *", timezone=zone)
        prefect_takes = True
    except ValidationError:
        prefect_takes = False
    try:
        setting_checks.timezone("AGENT_SIGNALS_SCHEDULE_TIMEZONE", zone)
        we_take = True
    except SettingsError:
        we_take = False
    assert we_take == prefect_takes


def _enum_providers() -> list[str]:
    """litellm's providers of its enum: its OpenAI-compatible JSON ones are appended to the same list as
    plain strings once a model string routes to one (get_llm_provider), so what the list holds depends on the
    tests that ran before in the process."""
    from enum import Enum

    import litellm

    return [p.value for p in litellm.provider_list if isinstance(p, Enum)]


@pytest.mark.unit
def test_the_provider_names_read_from_litellms_files_are_litellms():
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    known = set(_enum_providers())
    ours = model_names.providers()
    assert known <= ours
    assert all(JSONProviderRegistry.exists(name) for name in ours - known)  # its OpenAI-compatible ones


MODELS = ["openai/gpt-4o-mini", "gpt-4o-mini", "text-embedding-3-small", "anthropic/claude-sonnet-4-20250514",
          "gemini/gemini-2.0-flash", "hosted_vllm/qwen", "ollama/llama3", "openrouter/meta-llama/llama-3-70b",
          "groq/llama3-8b-8192", "veniceai/some-model", "bogus", "bogus/model", "gpt4o"]  # fmt: skip


@pytest.mark.unit
@pytest.mark.parametrize("model", MODELS)
def test_a_model_strings_provider_is_the_one_litellm_routes_it_to(model):
    import litellm

    import agent_signals.adapters.llm  # noqa: F401  (litellm without its banners)

    try:
        routed = litellm.get_llm_provider(model)[1]
    except Exception:
        routed = None
    assert model_names.provider_of(model) == routed


@pytest.mark.unit
def test_the_key_table_is_litellms_validate_environment(monkeypatch):
    """For every provider litellm knows: it is in provider_keys.toml exactly when litellm asks for API keys
    alone, every key litellm names is listed, and any one listed key satisfies litellm."""
    import litellm

    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_AUTH_TOKEN", "_AI_TOKEN")):
            monkeypatch.delenv(name)
    known = sorted(_enum_providers())
    for provider in known:
        missing = litellm.validate_environment(f"{provider}/some-model")["missing_keys"]
        keys = model_names.needed_keys(provider)
        assert bool(keys) == (bool(missing) and all(k.endswith("_API_KEY") for k in missing)), provider
        assert not keys or set(missing) <= set(keys), provider
        for key in keys:
            monkeypatch.setenv(key, "sk-1")
            assert litellm.validate_environment(f"{provider}/some-model")["missing_keys"] == [], (
                provider,
                key,
            )
            monkeypatch.delenv(key)
    assert {p for p in known if model_names.needed_keys(p)} == set(model_names._keys())


@pytest.mark.unit
def test_a_command_that_calls_no_model_needs_no_key_but_a_bad_model_string_still_stops_it():
    """`db`, `context`, `export` and the like never call a model: an operator migrating the database needs
    no API key. The model string itself is still checked."""
    keyless = clean_env(AGENT_SIGNALS_MODEL="openai/gpt-4o-mini")
    done = traced("context", "somebody", env=keyless)
    said = (done.stderr + done.stdout).splitlines()
    assert done.returncode != 2 and not any("OPENAI_API_KEY" in line for line in said), said
    done = traced("context", "somebody", env=clean_env(AGENT_SIGNALS_MODEL="gpt4o"))
    assert done.returncode == 2 and "names no model provider" in done.stderr, done.stderr
