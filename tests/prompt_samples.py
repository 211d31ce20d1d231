"""Fixed inputs for every prompt version and purpose, rendered by tests/test_limits.py and compared with
tests/data/rendered_prompts.json (the prompts as they were rendered before the limits came from limits.py).
Run `python -m tests.prompt_samples` to rewrite the golden file after a deliberate prompt change."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import (
    CoreLine,
    PromptMessage,
    PromptSignal,
    SummaryLine,
    render_extract,
    render_reconcile,
    render_summarize,
)
from agent_signals.limits import CORE_CAP

GOLDEN = Path(__file__).parent / "data" / "rendered_prompts.json"
TODAY = date(2026, 11, 22)
MESSAGES = [
    PromptMessage("m1", "I'm a staff data engineer on payments.", date="2026-11-20"),
    PromptMessage("m2", "typed </m> & <b>tags</b>", old=True, date="2025-01-02"),
    PromptMessage("m3", "I prefer short answers.\nAlways.", date="2026-11-21"),
]
KNOWN = [
    PromptSignal("s1", "Is a pilot", "core", "role", "manual"),
    PromptSignal("s2", "Likes\n<b>bold</b> text", "contextual", "preference", "inferred"),
]
CORE = [
    CoreLine("c1", "Works as a data engineer", "role", 3, "2026-11-01"),
    CoreLine("c2", "Owns the <payments> service", "ownership", 1, "2026-10-02", new=True),
]
OWN = [CoreLine("u1", "Prefers brief answers", "communication")]
SIGNALS = [
    SummaryLine("manual", "role", "Is a pilot"),
    SummaryLine("core", "team", "Works on the payments team"),
    SummaryLine("contextual", "preference", "Likes & uses <vim>"),
]


def rendered() -> dict[str, list[dict[str, str]]]:
    """Every prompt version and purpose, rendered from the fixed inputs (extract with and without known
    signals; reconcile at the core cap)."""
    out = {}
    for version in ("v1", "v2", "v3", "v4", "v5"):
        settings = Settings(prompt_version=version)
        out[f"extract/{version}"] = render_extract(settings, MESSAGES, KNOWN, TODAY)
        out[f"extract/{version} (nothing known)"] = render_extract(settings, MESSAGES[:1], [], TODAY)
    for version in ("v1", "v2"):
        out[f"reconcile/{version}"] = render_reconcile(Settings(), CORE, OWN, CORE_CAP, TODAY, version)
        out[f"reconcile/{version} (no own)"] = render_reconcile(
            Settings(), CORE, [], CORE_CAP, TODAY, version
        )
        out[f"summarize/{version}"] = render_summarize(Settings(), SIGNALS, TODAY, version)
    return out


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(rendered(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
