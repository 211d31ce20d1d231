"""Extraction for one user: their new messages (user role only) and known signals -> prompt(s) -> answers.

A user's new messages go in one call; they are split into several calls only past the prompt token budget
(AGENT_SIGNALS_MAX_PROMPT_TOKENS), which bounds the whole rendered prompt: instructions, known signals and
messages, counted with litellm's token counter for the configured model. A message too large for a prompt
of its own is cut to the part that fits (the rest of it is not read), and the call says so.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache
from uuid import UUID

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import (
    PromptMessage,
    PromptSignal,
    fence,
    prompt_set,
    render_extract,
)
from agent_signals.core.text import clean, disguises_text, hidden_characters
from agent_signals.errors import AgentSignalsError

MIN_MESSAGE_ROOM_TOKENS = 200  # a budget must leave at least this much for messages after the instructions
KNOWN_SHARE = 0.5  # known signals take at most this share of what the instructions leave
CHARS_PER_TOKEN_GUESS = 4  # where the search for the part of a huge message that fits starts
MAX_CHARS_PER_TOKEN = 16  # past this many characters a token, text is not counted whole (only a speed-up)


@dataclass(frozen=True)
class SourceMessage:
    """A user message as the pipeline reads it: `content` is the cleaned text (text.clean), the one the
    prompt, the screens, quote validation and the stored evidence all see."""

    conversation_id: str
    message_id: str
    content: str
    created_at: datetime
    stale: bool = False  # so old that a contextual fact from it alone is archived at once (decay)
    hidden: int = 0  # invisible characters removed from the stored text
    disguised: bool = False  # the stored text hides what it says (text.disguises_text)
    agent_id: str | None = None  # the agent the conversation is with (None: the product's one agent)

    @classmethod
    def read(
        cls,
        conversation_id: str,
        message_id: str,
        stored: str,
        created_at: datetime,
        stale: bool = False,
        agent_id: str | None = None,
    ) -> SourceMessage:
        """The message whose stored text (source.messages.content) is `stored`, cleaned."""
        return cls(
            conversation_id,
            message_id,
            clean(stored),
            created_at,
            stale,
            hidden_characters(stored),
            disguises_text(stored),
            agent_id,
        )


@dataclass(frozen=True)
class KnownSignal:
    signal_id: UUID
    content: str
    normalized: str
    tier: str
    kind: str
    origin: str
    agent_id: str | None = None  # None: a profile signal; else the agent whose relationship it is about
    valid_to: datetime | None = None  # when the fact stops holding (None: it still holds)


@dataclass
class UserMessages:
    """Everything one extraction needs for one user, and nothing of any other user."""

    user_id: str
    messages: list[SourceMessage] = field(default_factory=list)
    known: list[KnownSignal] = field(default_factory=list)


@dataclass(frozen=True)
class Cut:
    """A message only the first `kept` of whose `length` characters fit in a prompt."""

    message: SourceMessage
    kept: int
    length: int


@dataclass(frozen=True)
class Call:
    """One rendered prompt and the handles it showed the model. A cut message is shown (and validated
    against) as its first part: a quote of it is still a substring of the stored text."""

    prompt: list[dict[str, str]]
    messages: dict[str, SourceMessage]
    signals: dict[str, KnownSignal]
    cut: tuple[Cut, ...] = ()
    tokens: int = 0  # the prompt's tokens as litellm counts them for the configured model


CONTEXT_BLOCK = "## About this user"  # the heading of the block context.user_context renders


def is_pipeline_output(message: SourceMessage) -> bool:
    """A message carrying the context block the views render (pasted back by the user): the pipeline's own
    output is never read again as new evidence. Such messages are left out of the prompt (and still count
    as read, so the watermark moves past them)."""
    return CONTEXT_BLOCK.lower() in message.content.lower()


class PromptBudgetTooSmall(AgentSignalsError):
    """AGENT_SIGNALS_MAX_PROMPT_TOKENS cannot hold the extraction prompt's instructions and a message."""


def prompt_tokens(settings: Settings, prompt: list[dict[str, str]]) -> int:
    """Tokens of a rendered prompt by litellm's counter for the configured model: the tokenizer litellm
    knows for a real model, and the count the offline model reports as its usage (count_prompt)."""
    return count_prompt(settings.model.name, prompt)


def count_prompt(model: str, prompt: Sequence[dict[str, str]]) -> int:
    """litellm.token_counter(model, messages=prompt), the fixed head of the prompt (every message but the
    last: the instructions of a prompt version, the same for every user) counted once a process: litellm
    counts a prompt message by message, so the head's count plus the last message's is the whole's, less
    what both counts add once for the reply (_overlap). For a model whose counter does not add up so (found
    on its first prompt), the whole prompt is counted each time."""
    import litellm

    if len(prompt) < 2 or not _adds_up(model, prompt):
        return litellm.token_counter(model=model, messages=list(prompt))
    head = tuple((m["role"], m["content"]) for m in prompt[:-1])
    return (
        _head_tokens(model, head)
        + litellm.token_counter(model=model, messages=[prompt[-1]])
        - _overlap(model)
    )


@lru_cache(maxsize=64)
def _head_tokens(model: str, head: tuple[tuple[str, str], ...]) -> int:
    import litellm

    return litellm.token_counter(model=model, messages=[{"role": r, "content": c} for r, c in head])


@lru_cache(maxsize=64)
def _overlap(model: str) -> int:
    import litellm

    one, two = {"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Hello there."}
    apart = litellm.token_counter(model=model, messages=[one]) + litellm.token_counter(
        model=model, messages=[two]
    )
    return apart - litellm.token_counter(model=model, messages=[one, two])


_ADDS_UP: dict[str, bool] = {}


def _adds_up(model: str, prompt: Sequence[dict[str, str]]) -> bool:
    """Whether the model's counter adds up message by message, checked on its first prompt in a process."""
    if model not in _ADDS_UP:
        import litellm

        whole = litellm.token_counter(model=model, messages=list(prompt))
        head = tuple((m["role"], m["content"]) for m in prompt[:-1])
        last = litellm.token_counter(model=model, messages=[prompt[-1]])
        _ADDS_UP[model] = _head_tokens(model, head) + last - _overlap(model) == whole
    return _ADDS_UP[model]


def build_calls(user: UserMessages, settings: Settings, today: date) -> list[Call]:
    """The user's prompts, each within settings.model.max_prompt_tokens by the real count: usually one prompt,
    counted once. Past the budget, messages go in order, as many to a prompt as fit; a message that does not
    fit in a prompt alone is cut; known signals take at most KNOWN_SHARE of the room the instructions leave
    (the first ones: the user's own, core, recent)."""
    import litellm

    budget = settings.model.max_prompt_tokens
    messages = [m for m in user.messages if not is_pipeline_output(m)]
    handles = {f"s{i}": s for i, s in enumerate(user.known, start=1)}
    ids = sorted(
        {m.agent_id for m in messages if m.agent_id} | {s.agent_id for s in user.known if s.agent_id}
    )
    agents = {agent_id: f"a{i}" for i, agent_id in enumerate(ids, start=1)}  # handles, as for messages
    every = [
        PromptSignal(
            h,
            s.content,
            s.tier,
            s.kind,
            s.origin,
            agents.get(s.agent_id, ""),
            s.valid_to.date().isoformat() if s.valid_to is not None else "",
        )
        for h, s in handles.items()
    ]

    def render(
        chunk: Sequence[tuple[SourceMessage, str]], known: Sequence[PromptSignal]
    ) -> list[dict[str, str]]:
        shown = [
            PromptMessage(f"m{i}", text, m.stale, m.created_at.date().isoformat(), agents.get(m.agent_id, ""))
            for i, (m, text) in enumerate(chunk, start=1)
        ]
        return render_extract(settings, shown, known, today)

    def call(chunk: Sequence[tuple[SourceMessage, str]], known: Sequence[PromptSignal]) -> Call:
        prompt = render(chunk, known)
        return Call(
            prompt=prompt,
            messages={
                f"m{i}": m if text == m.content else replace(m, content=text)
                for i, (m, text) in enumerate(chunk, start=1)
            },
            signals={k.handle: handles[k.handle] for k in known},
            cut=tuple(Cut(m, len(text), len(m.content)) for m, text in chunk if text != m.content),
            tokens=prompt_tokens(settings, prompt),
        )

    if not messages:
        return []
    if sum(len(m.content) for m in messages) <= budget * MAX_CHARS_PER_TOKEN:  # else it cannot fit
        whole = call([(m, m.content) for m in messages], every)
        if whole.tokens <= budget:
            return [whole]

    instructions = prompt_tokens(settings, render([], []))
    if instructions + MIN_MESSAGE_ROOM_TOKENS > budget:
        raise PromptBudgetTooSmall(
            f"AGENT_SIGNALS_MAX_PROMPT_TOKENS is {budget} but the {settings.model.prompt_version} extraction "
            f"prompt's instructions take {instructions} tokens",
            hint=f"raise it to at least {instructions + MIN_MESSAGE_ROOM_TOKENS}",
        )
    known_limit = instructions + int((budget - instructions) * KNOWN_SHARE)
    shown = every[
        : _longest(len(every), lambda k: prompt_tokens(settings, render([], every[:k])) <= known_limit)
    ]
    room = budget - prompt_tokens(settings, render([], shown))

    # from extract/v2 on, the template shows each message's day
    dated = ' date="' in render([(messages[0], "")], [])[1]["content"]
    tag = '<m id="m000" date="2026-01-01">' if dated else '<m id="m000">'

    def line_tokens(text: str) -> int:  # one message as the template shows it (the handle's width aside)
        return litellm.token_counter(model=settings.model.name, text=f"{tag}{fence(text)}</m>\n")

    pending: deque[tuple[SourceMessage, str, int]] = deque()  # (message, text shown, its tokens)
    for message in messages:
        kept, tokens = _fit(message.content, room, line_tokens)
        pending.append((message, message.content[:kept], tokens))
    calls = []
    while pending:
        chunk = [pending.popleft()]
        used = chunk[0][2]
        while pending and used + pending[0][2] <= room:
            used += pending[0][2]
            chunk.append(pending.popleft())
        while (made := call([(m, text) for m, text, _t in chunk], shown)).tokens > budget:
            # the parts add up to about the whole; the whole is what must fit
            if len(chunk) > 1:
                pending.appendleft(chunk.pop())
            else:
                message, text, tokens = chunk[0]
                kept, tokens = _fit(text, tokens - (made.tokens - budget), line_tokens)
                chunk = [(message, text[:kept], tokens)]
        calls.append(made)
    return calls


def _longest(n: int, fits: Callable[[int], bool]) -> int:
    """The largest k <= n with fits(k), fits being monotone and fits(0) true (n itself is tried first)."""
    if fits(n):
        return n
    lo, hi = 0, n  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _fit(text: str, room: int, tokens: Callable[[str], int]) -> tuple[int, int]:
    """(characters kept, their tokens): all of text when it fits in room tokens, else its longest prefix that
    does. Counts at most about twice the text that fits, never all of a huge message."""
    lo, lo_tokens = 0, 0
    hi = min(len(text), max(room, 1) * CHARS_PER_TOKEN_GUESS)
    while (hi_tokens := tokens(text[:hi])) <= room:
        if hi == len(text):
            return hi, hi_tokens
        lo, lo_tokens, hi = hi, hi_tokens, min(len(text), hi * 2)
    while hi - lo > 1:  # tokens(text[:lo]) <= room < tokens(text[:hi])
        mid = (lo + hi) // 2
        mid_tokens = tokens(text[:mid])
        if mid_tokens <= room:
            lo, lo_tokens = mid, mid_tokens
        else:
            hi = mid
    return lo, lo_tokens


def prompt_version(settings: Settings) -> str:
    return prompt_set(settings, "extract", settings.model.prompt_version).version
