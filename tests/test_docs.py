"""The documentation is true to the code: README.md and docs/*.md link only to files and headings that exist,
show only real commands of the CLI and targets of the Makefile, name only real settings and existing files
and tests; every command is in the command reference (docs/operations.md) with its help text, and
docs/configuration.md's table is Settings' fields, in order, with their defaults."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import click
import pytest
from pydantic.fields import FieldInfo

from agent_signals.cli import cli
from agent_signals.config import FIELDS, GROUPS, PROJECT_DIR, Settings, variable

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND_REFERENCE = ROOT / "docs" / "operations.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
COMMAND = re.compile(r"(?<![\w-])agent-signals((?:[ \t]+[a-z][a-z0-9-]*)*)(?![\w-])")
MAKE = re.compile(r"(?<![\w-])make[ \t]+([a-z][a-z-]*)")
VARIABLE = re.compile(r"(?<![A-Z0-9_])AGENT_SIGNALS_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_])")
REPO_DIRS = ("src/", "tests/", "bench/", "sql/", "prompts/", "dbt/", "deploy/", "eval/")
PLACEHOLDER = re.compile(r"<|\bvN\b")  # prompts/extract/<version>.*, vN.system.j2
IGNORED = tuple(
    line.strip().lstrip("/") for line in (ROOT / ".gitignore").read_text().splitlines() if line.strip()
)  # named in the docs (deploy/.env), never in the repository


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _prose(text: str) -> str:
    """The text without fenced blocks and code spans: where links and headings are."""
    return CODE_SPAN.sub(" ", FENCE.sub("", text))


def _code(text: str) -> list[str]:
    """Every fenced block and code span of a page: where commands and paths are shown."""
    blocks = [m.group(0) for m in FENCE.finditer(text)]
    spans = [m.group(2) for m in CODE_SPAN.finditer(FENCE.sub("", text))]
    return blocks + spans


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to dashes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    kept = "".join(
        c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM"
    )  # letters, numbers, marks
    return kept.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(FENCE.sub("", page.read_text())):
        base = slug(match.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return frozenset(found)


def commands(group: click.Group, prefix: str = "agent-signals"):
    for name, command in group.commands.items():
        path = f"{prefix} {name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from commands(command, path)


def setting_variables() -> dict[str, FieldInfo]:
    """Each field of Settings' groups by the variable that sets it, in the order of config.FIELDS."""
    return {
        variable(flat): Settings.model_fields[group].annotation.model_fields[field]
        for flat, (group, field) in FIELDS.items()
    }


def test_config_fields_names_every_field_of_every_group_once():
    grouped = [
        (group, field) for group in GROUPS for field in Settings.model_fields[group].annotation.model_fields
    ]
    assert sorted(FIELDS.values()) == sorted(grouped) and len(set(FIELDS.values())) == len(FIELDS)
    assert list(Settings.model_fields) == list(GROUPS)


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_relative_link_points_at_a_file_and_heading_that_exist(page):
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if ROOT not in file.parents and file != ROOT:
            continue  # outside the repository (the monorepo's ../shared/): not checked here
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            broken.append(f"{target}: no heading #{fragment} in {_page_id(file)}")
    assert not broken, f"{_page_id(page)} has broken links: {broken}"


def unknown_command(words: list[str]) -> str | None:
    """The words after `agent-signals` up to the first that names no command, or None when they do."""
    command: click.Command = cli
    for i, word in enumerate(words):
        if not isinstance(command, click.Group):
            return None  # the rest are the command's arguments
        if word not in command.commands:
            if i > 0 and command.invoke_without_command:
                return None  # a group that runs on its own (`demo`), then its arguments
            return " ".join(words[: i + 1])
        command = command.commands[word]
    return None


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_command_shown_is_a_command_of_the_cli(page):
    wrong = set()
    for code in _code(page.read_text()):
        for match in COMMAND.finditer(code):
            unknown = unknown_command(match.group(1).split())
            if unknown:
                wrong.add(f"agent-signals {unknown}")
    assert not wrong, f"{_page_id(page)} shows commands the CLI does not have: {sorted(wrong)}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_make_target_shown_is_in_the_makefile(page):
    targets = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    shown = {target for code in _code(page.read_text()) for target in MAKE.findall(code)}
    assert shown <= targets, (
        f"{_page_id(page)} shows make targets the Makefile lacks: {sorted(shown - targets)}"
    )


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_setting_named_is_a_field_of_settings(page):
    known = setting_variables()
    unknown = sorted({v for v in VARIABLE.findall(page.read_text()) if v not in known})
    assert not unknown, f"{_page_id(page)} names settings Settings does not have: {unknown}"


def _defines(file: Path, name: str) -> bool:
    return bool(re.search(rf"^(async )?def {name}\b", file.read_text(), re.MULTILINE))


def names_what_exists(token: str) -> bool:
    """A path of the repository (a glob, or a prompt family such as prompts/reconcile/v1), with an optional
    `:function` (a flow's entrypoint) or `::test_function`, exists; placeholders and ignored files pass."""
    name, _, member = token.partition("::")
    path, _, entrypoint = name.partition(":")
    path = path.rstrip(".,;")
    if PLACEHOLDER.search(path) or path.startswith(IGNORED):
        return True
    if not ((ROOT / path).exists() or list(ROOT.glob(path)) or list(ROOT.glob(path + ".*"))):
        return False
    function = member or entrypoint
    return not function or _defines(ROOT / path, function)


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_repository_path_and_test_named_exists(page):
    missing = set()
    tests = sorted(ROOT.glob("tests/test_*.py"))
    for code in _code(page.read_text()):
        for token in re.findall(r"[\w./*<>:-]+", code):
            if token.startswith(REPO_DIRS) and not names_what_exists(token):
                missing.add(token)
        for function in re.findall(r"(?<![\w/.])::(test_\w+)", code):  # `::test_x` after a named file
            if not any(_defines(test, function) for test in tests):
                missing.add(f"::{function}")
    assert not missing, f"{_page_id(page)} names files or tests that do not exist: {sorted(missing)}"


@pytest.mark.parametrize("path", [p for p, _ in commands(cli)])
def test_every_command_has_help_and_is_in_the_command_reference(path):
    command = dict(commands(cli))[path]
    assert command.help and len(command.help.split()) >= 3, f"{path} needs a --help text"
    assert f"`{path}" in COMMAND_REFERENCE.read_text(), f"docs/operations.md does not list `{path}`"


def _rows(page: Path) -> list[tuple[str, str]]:
    """(variable, default) of each row of a page's settings table."""
    return re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*?) \|", page.read_text(), re.MULTILINE)


def test_the_configuration_table_is_every_setting_in_order():
    documented = [variable for variable, _ in _rows(CONFIGURATION)]
    assert documented == list(setting_variables()), (
        "docs/configuration.md's table is not Settings' fields in order"
    )


def test_the_configuration_tables_name_each_settings_group_and_field():
    documented = re.findall(
        r"^\| `([A-Z][A-Z0-9_]*)` \| [^|]*? \| `(\w+)\.(\w+)` \|", CONFIGURATION.read_text(), re.M
    )
    assert documented == [(variable(flat), *where) for flat, where in FIELDS.items()]


def test_the_configuration_table_says_each_default():
    fields = setting_variables()
    wrong = []
    for name, cell in _rows(CONFIGURATION):
        default = fields[name].default
        value = (
            cell.strip("`") if cell.count("`") == 2 and cell.startswith("`") and cell.endswith("`") else None
        )
        if default is None:
            ok = cell.startswith("unset")
        elif isinstance(default, Path):
            relative = default.relative_to(PROJECT_DIR)
            ok = "repository root" in cell if str(relative) == "." else f"`{relative}`" in cell
        elif isinstance(default, bool):
            ok = value == str(default).lower()
        elif isinstance(default, int | float):
            ok = value is not None and float(value) == default
        elif isinstance(default, tuple):
            ok = value == ",".join(default)
        else:
            ok = value == str(default)
        if not ok:
            wrong.append(f"{name}: documented {cell!r}, default {default!r}")
    assert not wrong, f"docs/configuration.md has wrong defaults: {wrong}"


def test_slugs_are_githubs():
    assert slug("Running, stopping, failing") == "running-stopping-failing"
    assert slug("The offline model's figures") == "the-offline-models-figures"
    assert slug("For analysts: the views and SQL") == "for-analysts-the-views-and-sql"
    assert slug("`eval` and `replay`") == "eval-and-replay"


# What the pages say of particular commands and of the defaults, checked against the code (issue 33, point 6).

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _flat(text: str) -> str:
    """A page's text with its line breaks folded, so a sentence wrapped over lines reads as one."""
    return re.sub(r"\s+", " ", text)


def test_the_pages_name_every_view_export_writes_and_count_them_right():
    from agent_signals.store.export import VIEWS

    analysts = _flat((ROOT / "docs" / "analysts.md").read_text())
    said = re.search(r"`agent-signals export DIR` writes the (\w+) views \(([^;]*);", analysts)
    assert said, "docs/analysts.md no longer says what export writes"
    assert said[1] == NUMBER_WORDS[len(VIEWS)], (
        f"export writes {len(VIEWS)} views, analysts.md says {said[1]}"
    )
    assert re.findall(r"`([a-z_]+\.[a-z_]+)`", said[2]) == list(VIEWS)
    lines = COMMAND_REFERENCE.read_text().splitlines()
    row = next(line for line in lines if line.startswith("| `agent-signals export DIR"))  # one line a row
    default = re.search(r"all (\w+) by default \(([^)]*)\)", row)
    assert default and default[1] == NUMBER_WORDS[len(VIEWS)], "operations.md miscounts export's views"
    assert re.findall(r"`([a-z_]+\.[a-z_]+)`", default[2]) == list(VIEWS)
    for page in PAGES:  # no page counts them otherwise
        for count in re.findall(r"export[^.|]*?\b(\w+) (?:views|by default)", _flat(page.read_text())):
            if count in NUMBER_WORDS:
                assert count == NUMBER_WORDS[len(VIEWS)], f"{_page_id(page)} says export writes {count} views"


def test_every_page_and_serves_help_name_the_deployments_serve_serves():
    """`serve` builds every deployment deploy/prefect.yaml declares (flows/deployments.py's build): the
    scheduled, backfill and shard ones. operations.md once said two, deployment.md "the first two"."""
    import yaml

    declared = [
        d["name"] for d in yaml.safe_load((ROOT / "deploy" / "prefect.yaml").read_text())["deployments"]
    ]
    said = {}
    for page in PAGES:
        for claim in re.findall(
            r"`agent-signals serve`\s*\|?\s*serves ([^.(]*?deployments)", page.read_text()
        ):
            said[f"{_page_id(page)}: {_flat(claim)}"] = _flat(claim)
    assert {page.split(":")[0] for page in said} >= {"docs/operations.md", "docs/deployment.md"}
    said["agent-signals serve --help"] = _flat(dict(commands(cli))["agent-signals serve"].help.split(".")[0])
    wrong = {where: claim for where, claim in said.items() if not all(name in claim for name in declared)}
    assert not wrong, f"serve serves {declared}; these say otherwise: {wrong}"


PIPELINE = ROOT / "docs" / "pipeline.md"


def _paragraph(page: Path, opening: str) -> str:
    """The flattened text from `opening` up to "The choices, and why" (a section's "what it needs" part)."""
    text = _flat(page.read_text())
    start = text.index(opening)
    return text[start : text.index("The choices, and why", start)]


def _first_version_asking(field: str) -> str:
    """The first extraction prompt whose answer shape has `field` (the offline model's own reading of a
    prompt: bounds, end, scope)."""
    from agent_signals_offline.rules.time_and_scope import asks_for

    versions = sorted(
        (p.name.split(".")[0] for p in (ROOT / "prompts" / "extract").glob("v*.system.j2")),
        key=lambda v: int(v[1:]),
    )
    return next(
        v for v in versions if field in asks_for((ROOT / f"prompts/extract/{v}.system.j2").read_text())
    )


def test_what_scopes_and_validity_need_names_the_prompts_that_ask_and_the_default():
    default = Settings.model_fields["model"].default.prompt_version
    scopes = _paragraph(PIPELINE, "**What an agent's signal needs.**")
    time = _paragraph(PIPELINE, "**What a fact's time needs.**")
    assert f"`extract/{_first_version_asking('scope')}` or later. The default, {default}, does" in scopes
    assert _first_version_asking("bounds") == _first_version_asking("end")
    assert f"`extract/{_first_version_asking('bounds')}` or later. The default, {default}, does" in time


def offline_answer(version: str, texts: list[str], known=(), agent: str = "") -> list[dict]:
    """The offline model's actions for one user's messages under prompt `version`."""
    import json
    from datetime import date

    from agent_signals.core.prompting.prompts import PromptMessage, render_extract
    from agent_signals_offline.provider import answer

    messages = [PromptMessage(f"m{i}", t, date="2026-11-20", agent=agent) for i, t in enumerate(texts, 1)]
    prompt = render_extract(Settings(prompt_version=version), messages, list(known), date(2026, 11, 22))
    return json.loads(answer(prompt))["actions"]


def test_the_offline_models_time_and_scope_are_what_pipeline_md_says():
    from agent_signals.core.prompting.prompts import PromptSignal
    from agent_signals_offline.rules import time_and_scope

    time = _paragraph(PIPELINE, "**What a fact's time needs.**")
    words = re.search(r"`(\w+)`, `(\w+)`, `(\w+)` or `(\w+)` followed by", time).groups()
    assert set(words) == set(
        re.search(r"\(\?P<word>([a-z|]+)\)", time_and_scope._BOUND.pattern)[1].split("|")
    )
    ending = re.search(r'sentence says ((?:"[^"]+",? (?:or )?)+)and shares', time)[1]
    phrases = re.findall(r'"([^"]+)"', ending)
    assert len(phrases) == time_and_scope._NO_LONGER.pattern.count("|") + 1
    assert all(time_and_scope._NO_LONGER.fullmatch(p.replace("...", "drink")) for p in phrases)
    scopes = _paragraph(PIPELINE, "**What an agent's signal needs.**")
    kinds = re.search(r"\(kinds `(\w+)` and `(\w+)`\)", scopes).groups()
    assert set(kinds) == time_and_scope.STANDING

    said = [
        "I was a team lead on payments until March 2025.",
        "I've been a data engineer since 2019.",
        "I've been a data engineer for ten years.",
        "I'm a data engineer as of 2019.",
        "I live in Lisbon. I've been here since 2020.",
    ]
    for example in said:
        assert example.split(". ")[0].rstrip(".") in time, f"pipeline.md no longer shows {example!r}"
    bounds = {
        a["content"]: {k: a[k]["date"] for k in ("since", "until") if k in a}
        for a in offline_answer("v5", said)
    }
    assert bounds == {
        "Was a team lead": {"until": "2025-03-01"},
        "Has been a data engineer since 2019": {"since": "2019-01-01"},
        "Has been a data engineer for ten years": {},  # a duration
        "Is a data engineer": {},  # as of 2019: none of the four words
        "Lives in Lisbon": {},  # the bound is in the next sentence
        "Has been here since 2020": {"since": "2020-01-01"},
    }
    known = [PromptSignal("s1", "Manages the data team", "core", "role", "inferred")]
    ended = [
        a for a in offline_answer("v5", ["I no longer manage the data team."], known) if a["action"] == "end"
    ]
    assert [a["signal"] for a in ended] == ["s1"]
    writing = ["Always write to me in British English."]  # the demo's showcase user, to the writer agent
    assert [a.get("scope") for a in offline_answer("v5", writing, agent="a1")] == ["agent"]
    assert [a.get("scope") for a in offline_answer("v5", writing)] == [None]  # no agent: the profile
    for version in ("v1", "v2", "v3"):  # the versions that do not ask for time
        assert not any("since" in a or "until" in a for a in offline_answer(version, said)), version
        assert not [
            a
            for a in offline_answer(version, ["I no longer manage the data team."], known)
            if a["action"] == "end"
        ]
    for version in ("v1", "v2"):  # nor for scope
        assert [a.get("scope") for a in offline_answer(version, writing, agent="a1")] == [None], version


def test_the_demo_shows_what_pipeline_md_says_it_shows():
    from agent_signals.cli.demo.synthetic import SHOWCASE, SHOWCASE_USER

    text = _flat(PIPELINE.read_text())
    assert f"user `{SHOWCASE_USER}` asks the writer agent for British English" in text
    assert f"user `{SHOWCASE_USER}` was a team lead until March 2025" in text
    said = {agent: texts for agent, texts in SHOWCASE}
    assert "I was a team lead on payments until March 2025." in said[None]
    assert "Always write to me in British English." in said["writer"]


README = ROOT / "README.md"


def test_the_readmes_psql_is_the_one_pgserver_ships_in_the_virtualenv():
    """The README says no PostgreSQL is needed, so the psql it shows is pgserver's, at its path in the
    virtualenv `make` creates (.venv, Python 3.11)."""
    import sys
    from importlib.util import find_spec

    shipped = Path(find_spec("pgserver").origin).parent / "pginstall" / "bin" / "psql"  # found, not imported
    assert shipped.is_file()
    in_venv = Path(".venv") / shipped.relative_to(sys.prefix)
    fenced = re.compile(r"^[ \t]*```.*?^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)  # in a list item too
    blocks = "\n".join(
        line.strip() for m in fenced.finditer(README.read_text()) for line in m[0].splitlines()
    )
    assert f"PSQL={in_venv}\n" in blocks
    bare = [line for line in blocks.splitlines() if re.search(r"(?<![\w$/-])psql\b", line)]
    assert not bare, f"the README runs a psql it does not say where to find: {bare}"


def test_the_readme_says_what_it_is_then_the_two_commands_then_a_real_model():
    text = README.read_text()
    headings = [m.group(2) for m in HEADING.finditer(FENCE.sub("", text))]
    assert headings[:4] == ["agent-signals", "Two commands", "A real model", "Where to look next"], headings
    first = _flat(text.split("\n\n")[1])
    assert first.startswith("agent-signals gives your product's agents a memory of each user.")
    assert "make demo" in text and "make test" in text
    model = text.index("AGENT_SIGNALS_MODEL=")
    for later in ("AGENT_SIGNALS_BATCH_MODE", "batch mode", "users per second", "| target"):
        assert later not in text[:model], f"the README shows {later!r} before how to use a real model"
    assert len(text.splitlines()) <= 100, "the README is a front page: details go to docs/"
