"""The offline model is registered only when a configured model string names it: importing the model adapter
loads nothing of agent_signals_offline, a process configured with real models never loads it, and a
configured offline model (chat or embedding) still answers through litellm."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import date

import pytest

from agent_signals.adapters import llm, providers
from agent_signals.config import OFFLINE_EMBEDDING_MODEL, OFFLINE_MODEL, Settings
from agent_signals.core.prompting.answers import parse_extract_actions
from agent_signals.core.prompting.prompts import PromptMessage, render_extract

pytestmark = pytest.mark.unit

REAL = {"model": "openai/gpt-4o-mini", "embedding_model": "openai/text-embedding-3-small"}


def python(code: str) -> str:
    """What a fresh interpreter prints running `code`."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


def test_neither_importing_the_model_adapter_nor_real_models_load_the_offline_package():
    code = (
        "import sys\n"
        "from agent_signals.adapters import llm, providers\n"
        "from agent_signals.config import Settings\n"
        "print('agent_signals_offline' in sys.modules)\n"
        f"print(providers.register_offline(Settings(**{REAL!r})), 'agent_signals_offline' in sys.modules)"
    )
    imported, registered = python(code).splitlines()
    assert imported == "False"  # `import agent_signals.adapters.llm` compiles none of the rules
    assert registered == "False False"  # nor does a run whose models are all real


def test_a_configured_offline_model_is_registered_and_answers():
    settings = Settings(model=OFFLINE_MODEL, embedding_model=OFFLINE_EMBEDDING_MODEL)
    assert providers.register_offline(settings)
    prompt = render_extract(
        settings, [PromptMessage("m1", "I'm a data engineer on the payments team.")], [], date.today()
    )
    completion = asyncio.run(llm.complete(prompt, settings))
    contents = [answered.action.content for answered in parse_extract_actions(completion.text).actions]
    assert contents == ["Is a data engineer", "Is on the payments team"]
    assert completion.prompt_tokens > 0 and completion.cost_usd == 0.0
    vectors = asyncio.run(llm.embed(["Works as a data engineer"], settings)).vectors
    assert len(vectors) == 1 and len(vectors[0]) == settings.model.embedding_dim


@pytest.mark.parametrize(
    ("model", "embedding_model", "registered"),
    [
        (OFFLINE_MODEL, REAL["embedding_model"], True),
        (REAL["model"], OFFLINE_EMBEDDING_MODEL, True),
        (REAL["model"], REAL["embedding_model"], False),
    ],
)
def test_either_offline_model_string_registers_the_provider(model, embedding_model, registered):
    assert providers.register_offline(Settings(model=model, embedding_model=embedding_model)) is registered
