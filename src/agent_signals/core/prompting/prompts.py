"""Prompt templates in prompts/: sandboxed Jinja with StrictUndefined, the limits of limits.py filled in by the
renderer; a template set's hash (its files and those limits) is its version."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from agent_signals import limits
from agent_signals.config import Settings
from agent_signals.errors import ConfigurationError
from agent_signals.setting_checks import prompt_files, prompt_versions

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_UNESCAPES = {v: k for k, v in _ESCAPES.items()}
_FENCE_CHARS = re.compile(r"[&<>]")
_ESCAPED = re.compile(r"&(?:amp|lt|gt);")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def fence(text: str) -> str:
    """Make text safe inside a tag fence: it can never open or close a tag, whatever it contains, and a
    typed `&lt;` stays distinct from an escaped `<` (`&` is escaped too, as in XML)."""
    return _FENCE_CHARS.sub(lambda m: _ESCAPES[m[0]], _CONTROL.sub(" ", str(text)))


def unfence(text: str) -> str:
    """The exact inverse of fence() (control characters stay replaced), in one pass so that `&amp;lt;`
    becomes `&lt;`, never `<`; for what a model quotes back from a prompt."""
    return _ESCAPED.sub(lambda m: _UNESCAPES[m[0]], text)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


@dataclass(frozen=True)
class PromptSet:
    """One versioned prompt family, e.g. extract/v1: a system template, a user template, an answer schema."""

    family: str
    version: str  # "extract/v1@<hash of the files>"
    system: Any
    user: Any
    schema: dict  # the answer's JSON schema (<version>.schema.json)

    def render(self, **context: Any) -> list[dict[str, str]]:
        """Both messages, from the call's `context` and the limits every template may use
        (limits.prompt_values(): content_chars, summary_words)."""
        fixed = limits.prompt_values()
        if fixed.keys() & context.keys():
            raise TypeError(
                f"a prompt's context may not set a limit: {sorted(fixed.keys() & context.keys())}"
            )
        values = {**fixed, **context}
        return [
            {"role": "system", "content": self.system.render(**values).strip()},
            {"role": "user", "content": self.user.render(**values).strip()},
        ]


@cache
def _environment(prompts_dir: Path) -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=FileSystemLoader(prompts_dir),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["fence"] = fence
    env.filters["one_line"] = one_line
    return env


class PromptNotFound(ConfigurationError):
    """A prompt version whose templates are not in prompts/."""


@cache
def _load(prompts_dir: Path, family: str, version: str) -> PromptSet:
    files = prompt_files(prompts_dir, family, version)
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        have = prompt_versions(prompts_dir, family)
        raise PromptNotFound(
            f"prompt {family}/{version} is missing {', '.join(missing)} in {prompts_dir / family}",
            hint=f"versions there: {', '.join(have) or 'none'}; a new prompt is a new set of files "
            f"({family}/vN.system.j2, vN.user.j2, vN.schema.json)",
        )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    digest.update(json.dumps(limits.prompt_values(), sort_keys=True).encode())  # filled in at render time
    env = _environment(prompts_dir)
    return PromptSet(
        family=family,
        version=f"{family}/{version}@{digest.hexdigest()[:12]}",
        system=env.get_template(f"{family}/{version}.system.j2"),
        user=env.get_template(f"{family}/{version}.user.j2"),
        schema=json.loads(files[2].read_text()),
    )


# The version each family but extract is rendered in (extract's is AGENT_SIGNALS_PROMPT_VERSION). Their v2 keep
# the day out of the system message, so that it is the same on every call and a provider's prompt cache holds.
FAMILY_VERSIONS = {"reconcile": "v2", "summarize": "v2"}


def prompt_set(settings: Settings, family: str, version: str | None = None) -> PromptSet:
    """The templates of a family in `version`, by default the one a run renders."""
    if version is None:
        version = settings.model.prompt_version if family == "extract" else FAMILY_VERSIONS[family]
    return _load(settings.prompts_dir, family, version)


@dataclass(frozen=True)
class PromptMessage:
    handle: str
    text: str
    old: bool = False  # shown as old="true": a contextual fact from old messages alone is archived at once
    # the day it was written (ISO), shown from extract/v2 on: relative times resolve against it
    date: str = ""
    agent: str = ""  # the handle of the agent its conversation is with (a1, ...), shown from extract/v3 on


@dataclass(frozen=True)
class PromptSignal:
    handle: str
    content: str
    tier: str
    kind: str
    origin: str
    agent: str = ""  # the handle of the agent whose signal it is ("": a profile signal), from extract/v3 on
    until: str = ""  # the day the fact stops holding (ISO; "": it still holds), shown from extract/v4 on


def render_extract(
    settings: Settings, messages: Sequence[PromptMessage], known: Sequence[PromptSignal], today: date
) -> list[dict[str, str]]:
    agents = sorted({m.agent for m in messages if m.agent} | {s.agent for s in known if s.agent})
    return prompt_set(settings, "extract", settings.model.prompt_version).render(
        messages=messages,
        known=known,
        agents=agents,
        kinds=settings.run.kinds,
        today=today.isoformat(),
        language=settings.screening.signal_language_name,
    )


# The inverse of the extract/v1 and v2 templates (v2 dates each message), for the offline model, which reads
# the same rendered prompt.
_MESSAGE = re.compile(
    r'^<m id="(m\d+)"(?: date="(\d{4}-\d{2}-\d{2})")?(?: agent="(a\d+)")?( old="true")?>(.*?)</m>$',
    re.MULTILINE | re.DOTALL,
)
_KNOWN = re.compile(
    r"^(s\d+) \[(core|contextual)/([a-z_]+), origin=(manual|inferred)(?:, agent=a\d+)?(?:, until=\d{4}-\d{2}-\d{2})?\] (.*)$",
    re.MULTILINE,
)
_KINDS = re.compile(r"^kind: one of (.+)\.$", re.MULTILINE)


def parse_extract_prompt(
    messages: Sequence[dict[str, str]],
) -> tuple[list[PromptMessage], list[PromptSignal], tuple[str, ...]]:
    system = next(m["content"] for m in messages if m["role"] == "system")
    user = next(m["content"] for m in messages if m["role"] == "user")
    known_block = user.split("<messages>", 1)[0]
    message_block = user.split("<messages>", 1)[1] if "<messages>" in user else ""
    kinds_match = _KINDS.search(system)
    kinds = tuple(k.strip() for k in kinds_match[1].split(",")) if kinds_match else ()
    parsed_messages = [
        PromptMessage(h, unfence(t), bool(o), d, a) for h, d, a, o, t in _MESSAGE.findall(message_block)
    ]
    parsed_known = [PromptSignal(h, unfence(c), t, k, o) for h, t, k, o, c in _KNOWN.findall(known_block)]
    return parsed_messages, parsed_known, kinds


@dataclass(frozen=True)
class CoreLine:
    """A signal as prompts/reconcile/v1 shows it: `c` handles for inferred core, `u` for the user's own."""

    handle: str
    content: str
    kind: str
    mentions: int = 0
    last_seen: str = ""
    new: bool = False


def render_reconcile(
    settings: Settings,
    core: Sequence[CoreLine],
    own: Sequence[CoreLine],
    cap: int,
    today: date,
    version: str | None = None,
) -> list[dict[str, str]]:
    return prompt_set(settings, "reconcile", version).render(
        core=core, own=own, cap=cap, today=today.isoformat(), language=settings.screening.signal_language_name
    )


_CORE = re.compile(r"^(c\d+) \[([a-z_]+), mentions=(\d+), last_seen=([0-9-]*)(, new)?\] (.*)$", re.MULTILINE)
_OWN = re.compile(r"^(u\d+) \[([a-z_]+)\] (.*)$", re.MULTILINE)
_CAP = re.compile(r"within a cap of (\d+)\.")


def is_extract_prompt(messages: Sequence[dict[str, str]]) -> bool:
    return any(m["role"] == "user" and "<messages>" in m["content"] for m in messages)


def is_reconcile_prompt(messages: Sequence[dict[str, str]]) -> bool:
    return any(m["role"] == "user" and "<core>" in m["content"] for m in messages)


def parse_reconcile_prompt(messages: Sequence[dict[str, str]]) -> tuple[list[CoreLine], list[CoreLine], int]:
    """The inverse of the reconcile/v1 templates, for the offline model."""
    system = next(m["content"] for m in messages if m["role"] == "system")
    user = next(m["content"] for m in messages if m["role"] == "user")
    own_block, _, core_block = user.partition("<core>")
    core = [
        CoreLine(h, unfence(c), k, int(n), seen, bool(new))
        for h, k, n, seen, new, c in _CORE.findall(core_block)
    ]
    own = [CoreLine(h, unfence(c), k) for h, k, c in _OWN.findall(own_block)]
    cap_match = _CAP.search(system)
    return core, own, int(cap_match[1]) if cap_match else limits.CORE_CAP


@dataclass(frozen=True)
class SummaryLine:
    bucket: str  # manual | core | contextual
    kind: str
    content: str


def render_summarize(
    settings: Settings, signals: Sequence[SummaryLine], today: date, version: str | None = None
) -> list[dict[str, str]]:
    return prompt_set(settings, "summarize", version).render(
        signals=signals, today=today.isoformat(), language=settings.screening.signal_language_name
    )


_SUMMARY_LINE = re.compile(r"^\[(manual|core|contextual)/([a-z_]+)\] (.*)$", re.MULTILINE)


def is_summarize_prompt(messages: Sequence[dict[str, str]]) -> bool:
    return any(m["role"] == "user" and m["content"].startswith("<signals>") for m in messages)


def parse_summarize_prompt(messages: Sequence[dict[str, str]]) -> list[SummaryLine]:
    """The inverse of the summarize/v1 templates, for the offline model."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    return [SummaryLine(b, k, unfence(c)) for b, k, c in _SUMMARY_LINE.findall(user)]
