"""The typed answers of prompts/extract/v1 and prompts/reconcile/v1 (their JSON schemas, the v1.schema.json
files beside the templates, are generated from these models and a test keeps them equal), and strict
parsing of a model's raw text."""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Handle = Annotated[str, StringConstraints(pattern=r"^[ms]\d{1,5}$")]
Tier = Literal["core", "contextual"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Evidence(_Strict):
    message: Handle
    quote: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class Create(_Strict):
    action: Literal["create"]
    content: Text
    tier: Tier
    kind: str
    evidence: list[Evidence] = Field(min_length=1, max_length=5)


class Update(_Strict):
    action: Literal["update"]
    signal: Handle
    content: Text
    tier: Tier
    kind: str
    evidence: list[Evidence] = Field(min_length=1, max_length=5)


class Skip(_Strict):
    action: Literal["skip"]
    reason: str = Field(default="", max_length=500)


Action = Annotated[Create | Update | Skip, Field(discriminator="action")]


SummaryText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1200)]


class ExtractAnswer(_Strict):
    actions: list[Action] = Field(max_length=50)
    # when anything was created or updated: the user's summary after these actions (saves a call)
    summary: SummaryText | None = None


CoreHandle = Annotated[str, StringConstraints(pattern=r"^[cu]\d{1,5}$")]


class Keep(_Strict):
    action: Literal["keep"]
    signal: CoreHandle


class Merge(_Strict):
    action: Literal["merge"]
    signals: list[CoreHandle] = Field(min_length=2, max_length=20)
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
    return _parse(raw, ExtractAnswer)


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
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidAnswer(f"wrong schema at {where}: {first['msg']}", raw) from None


ANSWER_MODELS: dict[str, type[BaseModel]] = {
    "extract": ExtractAnswer,
    "reconcile": ReconcileAnswer,
    "summarize": SummaryAnswer,
}


def answer_schema(family: str) -> dict:
    return ANSWER_MODELS[family].model_json_schema()
