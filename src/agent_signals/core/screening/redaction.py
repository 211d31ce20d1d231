"""Redaction of what the pipeline keeps or logs about a model's answer or a user's message outside the
signals themselves: quarantined candidates, failures and their raw answers, rejected actions, set-aside
messages, event payloads, the run's warnings and errors, and log lines. One redaction function everywhere:
screen.redact, the one that redacts evidence quotes.

A raw answer is JSON written by a model, which may escape any character (`\\u00e9`, `\\u0034`): redacting its
text would miss what the escapes hide, so an answer that parses is redacted value by value (every string,
every key, every number) and kept as JSON; one that does not parse has its JSON string escapes decoded first.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection
from typing import Any

from agent_signals.core.screening.screen import redact

# the fields of signals.events payloads (signal snapshots, merges, demotions) that hold text of a message or
# of a model; the others are ids, numbers and times, left as they are
EVENT_TEXT_FIELDS = frozenset({"content", "normalized", "quote", "reason", "summary"})
_CODE_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)
_ESCAPE = re.compile(
    r'\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]'
)


def redact_value(value: Any) -> Any:
    """A JSON value with every string, key and number redacted (a number can be a card number)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        text = str(value)
        hidden = redact(text)
        return value if hidden == text else hidden
    if isinstance(value, dict):
        return {redact(str(k)): redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return redact(str(value))


def redact_fields(value: Any, fields: Collection[str] = EVENT_TEXT_FIELDS) -> Any:
    """A JSON value with the strings under the named keys redacted, at any depth; the rest left as it is."""
    if isinstance(value, dict):
        return {
            k: redact_value(v) if k in fields and isinstance(v, str | list) else redact_fields(v, fields)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_fields(v, fields) for v in value]
    return value


def redact_answer(raw: str | None) -> str | None:
    """A model's raw answer, redacted: as JSON when it parses (fenced or not), else as text with its JSON
    escapes decoded."""
    if raw is None:
        return None
    fenced = _CODE_FENCE.match(raw)
    try:
        data = json.loads(fenced[1] if fenced else raw)
    except (json.JSONDecodeError, RecursionError):
        return redact(decode_escapes(raw))
    return json.dumps(redact_value(data), ensure_ascii=False)


def decode_escapes(text: str) -> str:
    """JSON string escapes (`\\u00e9`, surrogate pairs, `\\"`, `\\n`) in a text that is not JSON as a whole."""

    def decode(match: re.Match[str]) -> str:
        try:
            return json.loads(f'"{match[0]}"')
        except json.JSONDecodeError:
            return match[0]

    return _ESCAPE.sub(decode, text)


class RedactingFilter(logging.Filter):
    """Redacts a log record's message and traceback before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = redact(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None  # handlers print exc_text, never the exception itself
        return True


_FILTER = RedactingFilter()


def redacting_logger(name: str) -> logging.Logger:
    """The module's logger with its records redacted (a filter on a logger applies to that logger only)."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
