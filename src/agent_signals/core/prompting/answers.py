"""The typed answers of prompts/extract/v1 and prompts/reconcile/v1 (their JSON schemas, the v1.schema.json
files beside the templates, are generated from these models and a test keeps them equal), and strict
parsing of a model's raw text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from agent_signals.limits import CONTENT_MAX_CHARS, CORE_CAP, QUOTE_MAX_CHARS, SUMMARY_MAX_CHARS

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CONTENT_MAX_CHARS)]
Handle = Annotated[str, StringConstraints(pattern=r"^[ms]\d{1,5}$")]
Tier = Literal["core", "contextual"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Evidence(_Strict):
    message: Handle
    quote: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=QUOTE_MAX_CHARS)]


Scope = Literal["profile", "agent"]  # about the user for every agent, or about their relationship with one


class Bound(_Strict):
    """When a fact began or stops holding, as the user said it: the words quoted from a cited message and the
    day the model reads them as (validate.py holds the day to what the words can name, core/validity.py)."""

    quote: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=QUOTE_MAX_CHARS)]
    date: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class Create(_Strict):
    action: Literal["create"]
    content: Text
    tier: Tier
    kind: str
    evidence: list[Evidence] = Field(min_length=1, max_length=5)
    scope: Scope = "profile"
    since: Bound | None = None
    until: Bound | None = None


class Update(_Strict):
    action: Literal["update"]
    signal: Handle
    content: Text
    tier: Tier
    kind: str
    evidence: list[Evidence] = Field(min_length=1, max_length=5)
    scope: Scope | None = None  # an update keeps its signal's scope (None: not said); another is refused
    since: Bound | None = None
    until: Bound | None = None


class End(_Strict):
    """A known fact the user says no longer holds ("I no longer manage the data team"): its version ends."""

    action: Literal["end"]
    signal: Handle
    evidence: list[Evidence] = Field(min_length=1, max_length=5)
    until: Bound | None = None  # when it stopped holding (None: the cited message's date)


class Skip(_Strict):
    action: Literal["skip"]
    reason: str = Field(default="", max_length=500)


# the models of the action kinds, in core/actions.py's order (tests/test_actions.py)
Action = Annotated[Create | Update | End | Skip, Field(discriminator="action")]


SummaryText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=SUMMARY_MAX_CHARS)
]


MAX_ACTIONS = 50


class ExtractAnswer(_Strict):
    actions: list[Action] = Field(max_length=MAX_ACTIONS)
    # when anything was created or updated: the user's summary after these actions (saves a call)
    summary: SummaryText | None = None


class _ExtractEnvelope(_Strict):
    """An extraction answer with its actions and summary still unchecked (each is judged on its own)."""

    actions: list[Any] = Field(max_length=MAX_ACTIONS)
    summary: Any = None


CoreHandle = Annotated[str, StringConstraints(pattern=r"^[cu]\d{1,5}$")]


class Keep(_Strict):
    action: Literal["keep"]
    signal: CoreHandle


class Merge(_Strict):
    action: Literal["merge"]
    signals: list[CoreHandle] = Field(min_length=2, max_length=CORE_CAP)  # at most a cap's worth in one
    content: Text


class Demote(_Strict):
    action: Literal["demote"]
    signal: CoreHandle


Decision = Annotated[Keep | Merge | Demote, Field(discriminator="action")]


class ReconcileAnswer(_Strict):
    decisions: list[Decision] = Field(max_length=200)


class SummaryAnswer(_Strict):
    summary: SummaryText


class InvalidAnswer(Exception):
    """The model answered, but the answer cannot be used: nothing is written for that user."""

    def __init__(self, reason: str, raw: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


AnswerT = TypeVar("AnswerT", bound=BaseModel)
_CODE_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def parse_extract_answer(raw: str | None) -> ExtractAnswer:
    """The whole answer, strictly: any action off the schema rejects all of it (the offline model's tests)."""
    return _parse(raw, ExtractAnswer)


@dataclass(frozen=True)
class AnsweredAction:
    """One element of an answer's `actions` as the model wrote it, and the action it is when it fits the
    schema (else `error` says why not); `dropped` says which optional fields were left out of it to make it
    fit (a bound without a date, an unknown scope), each with why."""

    index: int
    written: Any  # the JSON value
    action: Create | Update | End | Skip | None
    error: str | None = None
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedExtract:
    actions: list[AnsweredAction]
    summary: str | None
    dropped_summary: str | None = None  # why the answer's summary was left out (empty, too long, not text)


_ACTION = TypeAdapter(Action)
_SUMMARY = TypeAdapter(SummaryText)
# what an action may do without: the fields that qualify a fact rather than state it
OPTIONAL_FIELDS = ("since", "until", "scope")


def parse_extract_actions(raw: str | None) -> ParsedExtract:
    """Parse an extraction answer part by part. The answer as a whole (JSON, an object with `actions`, at
    most MAX_ACTIONS of them, an optional summary, nothing else) must hold, else InvalidAnswer: nothing of it
    is used. Within it, a bad part costs only itself: an action off the schema is returned with its error
    beside the others; an action whose only faults are in optional fields (OPTIONAL_FIELDS) is kept without
    them; a summary that is empty, too long or not text is left out."""
    envelope = _parse(raw, _ExtractEnvelope)
    actions = [_action(i, written) for i, written in enumerate(envelope.actions)]
    summary, dropped = envelope.summary, None
    if summary is not None:
        try:
            summary = _SUMMARY.validate_python(summary, strict=True)
        except ValidationError as exc:
            summary, dropped = None, f"summary left out, the actions kept: {_where(exc, 'summary')}"
    return ParsedExtract(actions, summary, dropped)


def _action(i: int, written: Any) -> AnsweredAction:
    try:
        return AnsweredAction(i, written, _ACTION.validate_python(written, strict=True))
    except ValidationError as exc:
        error = f"wrong schema at {_where(exc, f'actions.{i}')}"
        faulty = {str(e["loc"][1]) for e in exc.errors() if len(e["loc"]) > 1}
        if not isinstance(written, dict) or not faulty or not faulty <= set(OPTIONAL_FIELDS):
            return AnsweredAction(i, written, None, error)
        kept = {k: v for k, v in written.items() if k not in faulty}
        try:
            action = _ACTION.validate_python(kept, strict=True)
        except ValidationError:
            return AnsweredAction(i, written, None, error)
        return AnsweredAction(i, written, action, dropped=(f"{error}; the field left out, the action kept",))


def _where(exc: ValidationError, *prefix: str) -> str:
    """Where the first error is and what it is (pydantic's message: it may quote a value, such as an unknown
    action's name, so whoever stores it redacts it)."""
    first = exc.errors()[0]
    return f"{'.'.join([*prefix, *(str(p) for p in first['loc'])])}: {first['msg']}"


def parse_reconcile_answer(raw: str | None) -> ReconcileAnswer:
    return _parse(raw, ReconcileAnswer)


def parse_summary_answer(raw: str | None) -> SummaryAnswer:
    return _parse(raw, SummaryAnswer)


def _parse(raw: str | None, model: type[AnswerT]) -> AnswerT:
    """Parse strictly. An empty body, non-JSON, or any schema violation raises InvalidAnswer."""
    if raw is None or not raw.strip():
        raise InvalidAnswer("empty answer", raw or "")
    text = raw
    fenced = _CODE_FENCE.match(text)
    if fenced:  # models often wrap JSON in a markdown code fence; the content must still be exact JSON
        text = fenced[1]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", raw) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidAnswer(f"wrong schema at {_where(exc)}", raw) from None


ANSWER_MODELS: dict[str, type[BaseModel]] = {
    "extract": ExtractAnswer,
    "reconcile": ReconcileAnswer,
    "summarize": SummaryAnswer,
}


def answer_schema(family: str) -> dict:
    return ANSWER_MODELS[family].model_json_schema()
