"""Settings are read in groups (settings.model.name) from the flat variables and keywords (AGENT_SIGNALS_MODEL,
Settings(model=...)), which config.FIELDS routes; a keyword, or a value of replace(), wins over its variable
field by field; replace() validates."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_signals.config import FIELDS, GROUPS, ModelSettings, Settings, load_settings, variable
from agent_signals.errors import SettingsError

pytestmark = pytest.mark.unit


def test_each_variable_sets_its_groups_field(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://env/db")
    monkeypatch.setenv("AGENT_SIGNALS_MODEL", "openai/from-env")
    monkeypatch.setenv("AGENT_SIGNALS_BATCH_MODE", "provider")
    monkeypatch.setenv("AGENT_SIGNALS_SCHEDULE_CRON", "0 * * * *")
    monkeypatch.setenv("AGENT_SIGNALS_KINDS", "role, team")
    settings = Settings()
    assert settings.database.url == "postgresql://env/db" and settings.model.name == "openai/from-env"
    assert settings.batch.mode == "provider" and settings.schedule.cron == "0 * * * *"
    assert settings.run.kinds == ("role", "team")
    assert variable("database_url") == "DATABASE_URL" and variable("batch_mode") == "AGENT_SIGNALS_BATCH_MODE"
    assert {group for group, _field in FIELDS.values()} == set(GROUPS)


def test_a_nested_variable_name_sets_nothing(monkeypatch):
    monkeypatch.setenv("AGENT_SIGNALS_MODEL__NAME", "openai/nested")
    monkeypatch.setenv("AGENT_SIGNALS_RUN__CONCURRENCY", "3")
    settings = Settings()
    assert settings.model.name != "openai/nested" and settings.run.concurrency != 3


def test_keywords_win_over_the_environment_field_by_field(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://env/db")
    monkeypatch.setenv("AGENT_SIGNALS_API_BASE", "http://env")
    settings = Settings(database_url="postgresql://given/db", model="openai/given")
    assert settings.database.url == "postgresql://given/db" and settings.model.name == "openai/given"
    assert settings.model.api_base == "http://env"  # not given: the environment's
    assert Settings(database_url=None).database.url is None
    # a dict validated (a flow's stored parameter) reads the environment too, its own values winning
    assert Settings.model_validate({"prompt_version": "v2"}).model.prompt_version == "v2"
    assert Settings.model_validate({"model": {"name": "openai/whole"}}).model.name == "openai/whole"
    assert Settings(model=ModelSettings(name="openai/group")).model.name == "openai/group"


def test_replace_keeps_the_rest_wins_over_the_environment_and_validates(monkeypatch):
    settings = Settings(database_url="postgresql://a/db", api_key="sk-kept", extra_headers={"X-A": "b"})
    monkeypatch.setenv("DATABASE_URL", "postgresql://env/db")
    monkeypatch.setenv("AGENT_SIGNALS_PROMPT_VERSION", "v1")
    copy = settings.replace(database_url="postgresql://b/db", batch_mode="provider")
    assert copy.database.url == "postgresql://b/db" and copy.batch.mode == "provider"
    assert copy.model.api_key.get_secret_value() == "sk-kept" and copy.model.extra_headers == {"X-A": "b"}
    assert copy.model.prompt_version == settings.model.prompt_version  # not the environment's
    assert settings.database.url == "postgresql://a/db"  # the original is untouched
    with pytest.raises(ValidationError):
        settings.replace(concurrency=0)
    with pytest.raises(TypeError, match="not settings: nope"):
        settings.replace(nope=1)


def test_a_bad_value_names_its_variable(monkeypatch):
    monkeypatch.setenv("AGENT_SIGNALS_BATCH_WAIT_S", "-1")
    with pytest.raises(SettingsError) as caught:
        load_settings(keys=False)
    assert str(caught.value).startswith("AGENT_SIGNALS_BATCH_WAIT_S:")
