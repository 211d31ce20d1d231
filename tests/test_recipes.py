"""docs/architecture.md's recipes (how to add an action kind, a setting, a view column, a screen): each
names, as its numbered steps, no more files than the change should touch, and every file it names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the most files each change may touch (issue 34's targets), its prompt version and docs aside
STEPS_AT_MOST = {"an action kind": 4, "a setting": 2, "a view column": 2, "a screen": 3}


def recipe(name: str) -> str:
    """The recipe's text: from its heading to the next heading."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    heading = f"### How to add {name}\n"
    start = text.index(heading) + len(heading)
    end = text.find("\n#", start)
    return text[start : end if end >= 0 else len(text)]


@pytest.mark.unit
def test_the_architecture_page_has_each_recipe_and_no_other():
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert sorted(re.findall(r"^### How to add (.+)$", text, re.MULTILINE)) == sorted(STEPS_AT_MOST)


@pytest.mark.unit
@pytest.mark.parametrize(("name", "most"), STEPS_AT_MOST.items())
def test_a_recipe_names_few_files_and_every_file_it_names_exists(name, most):
    text = recipe(name)
    steps = re.findall(r"^\d+\. `([^`]+)`", text, re.MULTILINE)
    assert 0 < len(steps) <= most, steps
    named = [token for token in text.split("`") if "/" in token and " " not in token]
    assert set(steps) <= set(named)
    missing = [
        path for path in named if not sorted(ROOT.glob(re.sub(r"<[a-z]+>", "*", path).replace("vN", "v*")))
    ]
    assert not missing, f"docs/architecture.md's recipe for {name} names files that are not there: {missing}"
