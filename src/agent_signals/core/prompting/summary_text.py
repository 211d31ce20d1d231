"""A user's summary written from their signals themselves, without a model: a deterministic paragraph
(contents are third person without a subject, so "The user" + content reads as a sentence). The summary
stage falls back to it when the model's paragraph fails screening; the offline model answers
prompts/summarize/v1 with it."""

from __future__ import annotations

from agent_signals.core.prompting.prompts import SummaryLine
from agent_signals.limits import SUMMARY_MAX_WORDS


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text  # keep "SQL..." as is


def _sentence(subject: str, parts: list[str]) -> str:
    parts = [_lower_first(p.rstrip(" .")) for p in parts]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{subject} {listed}."


def summary_from_signals(signals: list[SummaryLine]) -> str:
    """Identity (the user's own and core signals), then what is recent, within the summary's words."""
    identity = [s.content for s in signals if s.bucket in ("manual", "core")]
    recent = [s.content for s in signals if s.bucket == "contextual"]
    sentences: list[str] = []
    words = 0
    for subject, parts in (("The user", identity), ("Lately, the user also", recent)):
        kept: list[str] = []
        for part in parts:
            if words + len(part.split()) > SUMMARY_MAX_WORDS - 4:
                break
            kept.append(part)
            words += len(part.split())
        if kept:
            sentences.append(_sentence(subject, kept))
    return " ".join(sentences) or "Nothing is known about the user yet."
