"""Extraction for one user: their new messages (user role only) and known signals -> prompt(s) -> answers.

A user's new messages go in one call; they are split into several calls only past the prompt token budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from uuid import UUID

from agent_signals.config import Settings
from agent_signals.prompts import PromptMessage, PromptSignal, prompt_set, render_extract

# A cheap upper estimate used only to decide chunking; usage itself is counted by the model boundary.
CHARS_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 8


@dataclass(frozen=True)
class SourceMessage:
    conversation_id: str
    message_id: str
    content: str
    created_at: datetime
    stale: bool = False  # so old that a contextual fact from it alone is archived at once (decay)


@dataclass(frozen=True)
class KnownSignal:
    signal_id: UUID
    content: str
    normalized: str
    tier: str
    kind: str
    origin: str


@dataclass
class UserBatch:
    """Everything one extraction needs for one user, and nothing of any other user."""

    user_id: str
    messages: list[SourceMessage] = field(default_factory=list)
    known: list[KnownSignal] = field(default_factory=list)


@dataclass(frozen=True)
class Call:
    """One rendered prompt and the handles it showed the model."""

    prompt: list[dict[str, str]]
    messages: dict[str, SourceMessage]
    signals: dict[str, KnownSignal]


def _estimate(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS


def chunk_messages(messages: list[SourceMessage], budget_tokens: int) -> list[list[SourceMessage]]:
    """Consecutive chunks whose estimated size stays within the budget (a single huge message is alone)."""
    chunks: list[list[SourceMessage]] = []
    current: list[SourceMessage] = []
    used = 0
    for message in messages:
        size = _estimate(message.content)
        if current and used + size > budget_tokens:
            chunks.append(current)
            current, used = [], 0
        current.append(message)
        used += size
    if current:
        chunks.append(current)
    return chunks


CONTEXT_BLOCK = "## About this user"  # the heading of the block context.user_context renders


def is_pipeline_output(message: SourceMessage) -> bool:
    """A message carrying the context block the views render (pasted back by the user): the pipeline's own
    output is never read again as new evidence. Such messages are left out of the prompt (and still count
    as read, so the watermark moves past them)."""
    return CONTEXT_BLOCK.lower() in message.content.lower()


def build_calls(batch: UserBatch, settings: Settings, today: date) -> list[Call]:
    signals = {f"s{i}": s for i, s in enumerate(batch.known, start=1)}
    shown = [PromptSignal(h, s.content, s.tier, s.kind, s.origin) for h, s in signals.items()]
    fixed = sum(_estimate(s.content) for s in batch.known) + 600  # instructions and known signals
    budget = max(settings.max_prompt_tokens - fixed, 200)
    calls = []
    for chunk in chunk_messages([m for m in batch.messages if not is_pipeline_output(m)], budget):
        handles = {f"m{i}": m for i, m in enumerate(chunk, start=1)}
        prompt = render_extract(
            settings, [PromptMessage(h, m.content, m.stale) for h, m in handles.items()], shown, today
        )
        calls.append(Call(prompt=prompt, messages=handles, signals=signals))
    return calls


def prompt_version(settings: Settings) -> str:
    return prompt_set(settings, "extract", settings.prompt_version).version
