"""What the offline model answers of the default prompt's newer fields, so that the demo shows them: a bound
the user states in plain words in the sentence a fact is quoted from ("until March", "since 2019"), an `end`
for a known fact the user says no longer holds ("I no longer manage the data team"), and `scope: agent` for
how the user wants one agent to write or talk, said only to that agent. Only where the prompt asks for them
(extract/v4 on); the fact rules themselves are untouched.

Dates are read by core/validity.py, the reading the validator holds a model's dates to, against the
message's own day."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from agent_signals.core.prompting.prompts import PromptMessage, PromptSignal
from agent_signals.core.validity import spans
from agent_signals_offline.words import content_words

_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_WHEN = rf"(?:{_MONTH}(?: \d{{4}})?|\d{{4}}|the end of (?:the |this )?(?:year|month|quarter)|next (?:year|month)|last (?:year|month))"
_BOUND = re.compile(rf"\b(?P<word>until|till|through|since)\s+(?P<when>{_WHEN})\b", re.I)
_NO_LONGER = re.compile(r"\b(?:no longer|not any ?more|don'?t [a-z]+ any ?more|stopped|quit|left)\b", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
STANDING = frozenset({"communication", "writing"})  # how the user wants answers written and talked


def asks_for(system: str) -> frozenset[str]:
    """The newer fields the prompt's answer shape has: since/until, end, scope."""
    fields = set()
    if '"since"' in system:
        fields.add("bounds")
    if '"action": "end"' in system:
        fields.add("end")
    if '"scope": "agent"' in system:
        fields.add("scope")
    return frozenset(fields)


def add_fields(
    actions: list[dict], messages: list[PromptMessage], known: list[PromptSignal], fields: frozenset[str]
) -> list[dict]:
    """The actions with the fields `fields` allows, and an `end` for each known fact a message ends."""
    by_handle = {m.handle: m for m in messages}
    out = []
    for action in actions:
        cited = [by_handle[e["message"]] for e in action.get("evidence", []) if e["message"] in by_handle]
        if action["action"] in ("create", "update") and cited:
            if "bounds" in fields:
                action = action | _bounds(action["evidence"][0]["quote"], cited[0])
            if "scope" in fields and action["action"] == "create" and _agent_only(action, cited):
                action = action | {"scope": "agent", "tier": "contextual"}
        out.append(action)
    if "end" in fields:
        out += _ends(messages, known, out)
    return out


def _said_at(message: PromptMessage) -> datetime | None:
    return datetime.fromisoformat(message.date).replace(tzinfo=UTC) if message.date else None


def _bounds(quote: str, message: PromptMessage) -> dict:
    """`since`/`until` for a bound said in the sentence the quote is from, the first day of what it names."""
    said_at = _said_at(message)
    sentence = next((s for s in _SENTENCE.findall(message.text) if quote in s), quote)
    found: dict = {}
    for match in _BOUND.finditer(sentence) if said_at else ():
        periods = spans(match["when"], said_at)
        if not periods:
            continue
        # "until March" said in November: the coming March; "since May": the last one
        ahead = match["word"].lower() != "since"
        fitting = [p for p in periods if (p.end > said_at if ahead else p.start <= said_at)]
        period = (fitting[0] if ahead else fitting[-1]) if fitting else periods[-1 if ahead else 0]
        key = "until" if ahead else "since"
        found.setdefault(key, {"quote": match[0], "date": period.start.date().isoformat()})
    return found


def _agent_only(action: dict, cited: list[PromptMessage]) -> bool:
    """A standing way of writing or talking said only in one agent's conversation: that agent's."""
    agents = {m.agent for m in cited}
    return action.get("kind") in STANDING and len(agents) == 1 and "" not in agents


def _ends(messages: list[PromptMessage], known: list[PromptSignal], actions: list[dict]) -> list[dict]:
    """An `end` of a known inferred fact a sentence says no longer holds and shares a word with."""
    touched = {a.get("signal") for a in actions}
    ended = []
    for message in messages:
        for sentence in _SENTENCE.findall(message.text):
            if not _NO_LONGER.search(sentence):
                continue
            words = set(content_words(sentence))
            for signal in known:
                if (
                    signal.origin == "manual"
                    or signal.handle in touched
                    or not words & set(content_words(signal.content))
                ):
                    continue
                touched.add(signal.handle)
                ended.append({"action": "end", "signal": signal.handle,
                              "evidence": [{"message": message.handle, "quote": sentence.strip()}]})  # fmt: skip
    return ended
