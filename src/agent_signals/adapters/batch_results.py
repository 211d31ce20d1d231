"""A provider batch's answers (adapters/provider_batches.py sends and follows the batch): its output and error files
read back as one BatchResult per request, each answer priced at the batch price (litellm's where its cost map
has one, else the direct price times AGENT_SIGNALS_BATCH_DISCOUNT)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import litellm
from litellm.cost_calculator import batch_cost_calculator
from litellm.litellm_core_utils.llm_cost_calc.utils import get_batch_cost_rates

from agent_signals.adapters import llm
from agent_signals.adapters.provider_batches import BatchStatus, file_text, one_line
from agent_signals.config import Settings

log = logging.getLogger(__name__)

STATUS_KINDS = {  # a failed request's kind by its HTTP status (llm.py's words)
    400: "bad_request",
    401: "authentication",
    403: "permission",
    404: "bad_request",
    408: "timeout",
    422: "bad_request",
    429: "rate_limit",
}


@dataclass(frozen=True)
class BatchResult:
    """One request's outcome: an answer (`completion`, priced at the batch price) or an error."""

    custom_id: str
    completion: llm.Completion | None  # None for an error; truncated=True for an answer cut at max_tokens
    error_kind: str | None  # expired, cancelled, rate_limit, server_error, timeout, authentication,
    # permission, bad_request, empty_answer, bad_line, error
    error: str | None  # one line, for the failure ledger
    spent: llm.Completion | None = None  # an empty answer's usage: paid for, to be counted like any other


async def results(
    settings: Settings, status: BatchStatus, *, model: str | None = None
) -> dict[str, BatchResult]:
    """Every request's outcome in the batch's output and error files (either may be None), by custom id; a
    request in neither is absent. Answers are priced at the batch price of `model` (the litellm model string
    the batch was submitted with; AGENT_SIGNALS_MODEL by default). An answer wins over an error of the same
    request (there should be no such pair)."""
    priced = model or settings.model.name
    found: dict[str, BatchResult] = {}
    for file_id in (status.error_file_id, status.output_file_id):
        if file_id is None:
            continue
        for number, line in enumerate((await file_text(settings, file_id)).splitlines(), 1):
            if not line.strip():
                continue
            result = _result(settings, priced, line)
            if result is None:
                log.warning("batch %s: line %d of file %s names no request, skipped", status.batch_id, number,
                            file_id)  # fmt: skip
                continue
            found[result.custom_id] = result
    return found


def _result(settings: Settings, model: str, line: str) -> BatchResult | None:
    """One line of an output or error file as a BatchResult (None: a line naming no request)."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return None
    custom_id = row.get("custom_id") if isinstance(row, dict) else None
    if not isinstance(custom_id, str) or not custom_id:
        return None
    error = row.get("error") or None
    response = row.get("response") or {}
    code = response.get("status_code")
    body = response.get("body") if isinstance(response.get("body"), dict) else {}
    if error or code != 200:
        detail = error if isinstance(error, dict) else body.get("error") or {}
        if not isinstance(detail, dict):
            detail = {"message": str(detail)}
        kind = _error_kind(code, detail.get("code"))
        message = detail.get("message") or (f"status {code}" if code else "no answer")
        prefix = f"status {code}: " if code else ""
        return BatchResult(custom_id, None, kind, one_line(f"{kind}: {prefix}{message}"))
    try:
        choice = body["choices"][0]
        text = (choice.get("message") or {}).get("content")
        usage = body.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
        cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        return BatchResult(custom_id, None, "bad_line", one_line(f"bad_line: not a chat completion: {exc!r}"))
    truncated = choice.get("finish_reason") == "length"
    completion = llm.Completion(
        text=text or "",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=batch_cost(settings, model, prompt_tokens, completion_tokens, cached),
        attempts=1,
        cached_prompt_tokens=cached,
        truncated=truncated,
    )
    if not truncated and (not text or not text.strip()):
        return BatchResult(
            custom_id,
            None,
            "empty_answer",
            "empty_answer: the model returned an empty body",
            spent=completion,
        )
    return BatchResult(custom_id, completion, None, None)


def _error_kind(status_code: object, code: object) -> str:
    """A failed request's kind, in llm.py's words where they fit."""
    if code == "batch_expired":
        return "expired"
    if code == "batch_cancelled":
        return "cancelled"
    if not isinstance(status_code, int):
        return "error"
    return "server_error" if status_code >= 500 else STATUS_KINDS.get(status_code, "error")


def batch_cost(
    settings: Settings, model: str, prompt_tokens: int, completion_tokens: int, cached: int = 0
) -> float:
    """The price of one batch answer of `model` (a litellm model string): litellm's batch price where its
    cost map has one for the model (`*_batches` keys: batch_cost_calculator, which halves a rate it lacks),
    else the direct price times AGENT_SIGNALS_BATCH_DISCOUNT; 0 for a model litellm has no price for."""
    usage = litellm.Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
        prompt_tokens_details={"cached_tokens": cached} if cached else None,
    )
    try:
        info = litellm.get_model_info(model)
        provider = litellm.get_llm_provider(model)[1]
    except Exception:  # a model litellm has no entry for: tokens are still counted
        return 0.0
    try:
        rates = get_batch_cost_rates(info, usage, provider)
        if rates.input is not None or rates.output is not None:
            prompt_cost, completion_cost = batch_cost_calculator(usage, model, model_info=info)
            return float(prompt_cost + completion_cost)
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, usage_object=usage
        )
        return float(prompt_cost + completion_cost) * settings.batch.discount
    except Exception:  # a cost map entry without token prices
        return 0.0
