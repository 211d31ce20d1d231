"""Provider batches through litellm's files and batches API (OpenAI's Batch API format): a JSONL file of chat
requests uploaded (purpose `batch`), a batch created on it (completion window 24h) carrying our key in its
metadata, its status retrieved, its output and error files read back, cancelled on request.

Providers: those litellm 1.106 serves with OpenAI's JSONL format through its OpenAI-compatible files and
batches path: `openai/...` (OpenAI, or any server that implements these endpoints, reached with
AGENT_SIGNALS_API_BASE), `azure/...` (with AZURE_API_BASE, AZURE_API_KEY, AZURE_API_VERSION and a
global-batch deployment) and `hosted_vllm/...`. Vertex AI, Bedrock and Anthropic batches take other input
formats and storage (GCS, S3, Message Batches) and are refused by check_provider.

Every call is retried like a direct call for transient faults; litellm passes the OpenAI SDK's own errors
through unmapped here, so they are mapped by type and HTTP status to llm.py's ModelMisconfigured and
ModelUnavailable.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

import litellm
import openai

from agent_signals.adapters import llm
from agent_signals.adapters.providers import provider_kwargs
from agent_signals.config import Settings

T = TypeVar("T")

SUPPORTED = ("openai", "azure", "hosted_vllm")
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
KEY = "agent_signals_batch"  # the metadata field carrying our batch key
TRANSIENT = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
)


@dataclass(frozen=True)
class BatchRequest:
    """One chat request of a batch."""

    custom_id: str
    prompt: list[dict]
    family: str = "extract"  # the prompt family: its response_format (structured.py)
    max_tokens: int | None = None  # the answer's budget (None: AGENT_SIGNALS_MAX_ANSWER_TOKENS)


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    status: str
    output_file_id: str | None
    error_file_id: str | None
    total: int
    completed: int
    failed: int
    created_at: datetime | None
    error: str | None

    @property
    def ended(self) -> bool:
        return self.status in ENDED


@dataclass(frozen=True)
class BatchResult:
    """One request's outcome: an answer, or an error (kind and one line)."""

    custom_id: str
    completion: llm.Completion | None
    error_kind: str | None = None
    error: str | None = None


def provider_of(settings: Settings) -> tuple[str, str]:
    """(the model's name at its provider, litellm's provider name)."""
    model, provider, _key, _base = litellm.get_llm_provider(settings.model)
    return model, provider


def check_provider(settings: Settings) -> None:
    """Refuse, before anything is sent, a model whose provider this mode cannot send batches to."""
    try:
        provider = provider_of(settings)[1]
    except Exception:
        provider = settings.model.partition("/")[0]
    if provider not in SUPPORTED:
        raise llm.ModelMisconfigured(
            "bad_request",
            f"AGENT_SIGNALS_BATCH_MODE=provider cannot send batches for AGENT_SIGNALS_MODEL={settings.model} "
            f"(provider {provider or 'unknown'}): batches go through OpenAI's format ({', '.join(SUPPORTED)})",
            "set AGENT_SIGNALS_BATCH_MODE=off, or name a model of one of those providers",
        )


def request_line(settings: Settings, request: BatchRequest) -> dict:
    """The JSONL line of one request: the body a direct call (llm.complete) sends, for the provider's name."""
    budget = request.max_tokens or settings.max_answer_tokens
    body = llm.request_body(settings, request.prompt, request.family, budget)
    body["model"] = provider_of(settings)[0]
    return {"custom_id": request.custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def _kwargs(settings: Settings) -> dict:
    kwargs = provider_kwargs(settings)
    kwargs.pop("extra_headers", None)
    headers = dict(settings.extra_headers or {})
    if headers:
        kwargs["extra_headers"] = headers
    return {"custom_llm_provider": provider_of(settings)[1], **kwargs}


async def _call(settings: Settings, call: Callable[[], Awaitable[T]]) -> T:
    """One files or batches request with llm.py's retry policy; the OpenAI SDK's errors mapped."""

    async def mapped() -> T:
        try:
            return await call()
        except TRANSIENT as exc:
            raise litellm.ServiceUnavailableError(
                str(exc)[:500], llm_provider="", model=settings.model
            ) from exc

    return (await llm._with_retries(settings, mapped))[0]


async def submit(settings: Settings, requests: list[BatchRequest], key: str) -> str:
    """Upload the requests as one JSONL file and create a batch on it; returns the provider's batch id."""
    data = "".join(
        json.dumps(request_line(settings, r), ensure_ascii=False) + "\n" for r in requests
    ).encode()
    kwargs = _kwargs(settings)
    uploaded = await _call(settings, lambda: litellm.acreate_file(file=(f"{key}.jsonl", data), purpose="batch",
                                                                  **kwargs))  # fmt: skip
    batch = await _call(settings, lambda: litellm.acreate_batch(
        completion_window="24h", endpoint="/v1/chat/completions", input_file_id=uploaded.id,
        metadata={KEY: key}, **kwargs))  # fmt: skip
    return batch.id


def _status(batch) -> BatchStatus:
    counts = getattr(batch, "request_counts", None)
    errors = getattr(batch, "errors", None)
    data = getattr(errors, "data", None) or []
    error = "; ".join(str(getattr(e, "message", e)) for e in data)[:500] or None
    created = getattr(batch, "created_at", None)
    return BatchStatus(
        batch.id, batch.status, batch.output_file_id, batch.error_file_id,
        int(getattr(counts, "total", 0) or 0), int(getattr(counts, "completed", 0) or 0),
        int(getattr(counts, "failed", 0) or 0),
        datetime.fromtimestamp(created, UTC) if created else None, error,
    )  # fmt: skip


async def retrieve(settings: Settings, batch_id: str) -> BatchStatus:
    kwargs = _kwargs(settings)
    return _status(await _call(settings, lambda: litellm.aretrieve_batch(batch_id=batch_id, **kwargs)))


async def cancel(settings: Settings, batch_id: str) -> BatchStatus:
    kwargs = _kwargs(settings)
    return _status(await _call(settings, lambda: litellm.acancel_batch(batch_id=batch_id, **kwargs)))


async def find(settings: Settings, key: str, since: datetime) -> BatchStatus | None:
    """The provider's batch carrying this key in its metadata, among those created since `since` (newest
    first, page by page); None when there is none."""
    kwargs = _kwargs(settings)
    after = None
    while True:
        page = await _call(
            settings, lambda after=after: litellm.alist_batches(after=after, limit=100, **kwargs)
        )
        batches = list(getattr(page, "data", None) or [])
        for batch in batches:
            if (getattr(batch, "metadata", None) or {}).get(KEY) == key:
                return _status(batch)
        older = [b for b in batches if getattr(b, "created_at", None) and b.created_at < since.timestamp()]
        if not batches or older or not getattr(page, "has_more", False):
            return None
        after = batches[-1].id


async def _lines(settings: Settings, file_id: str | None) -> list[dict]:
    if file_id is None:
        return []
    kwargs = _kwargs(settings)
    with warnings.catch_warnings():  # litellm's afile_content leaves a coroutine it never awaits
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        content = await _call(settings, lambda: litellm.afile_content(file_id=file_id, **kwargs))
    text = content.text if hasattr(content, "text") else bytes(content.content).decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def results(settings: Settings, status: BatchStatus) -> dict[str, BatchResult]:
    """Each answered or failed request of an ended batch, by custom_id (a request in neither file is absent:
    the batch expired, was cancelled or failed before answering it)."""
    found: dict[str, BatchResult] = {}
    for line in [
        *await _lines(settings, status.output_file_id),
        *await _lines(settings, status.error_file_id),
    ]:
        found[line["custom_id"]] = _result(settings, line)
    return found


def _result(settings: Settings, line: dict) -> BatchResult:
    custom_id = line["custom_id"]
    response = line.get("response") or {}
    code = response.get("status_code")
    body = response.get("body") or {}
    if line.get("error") or code != 200:
        error = line.get("error") or body.get("error") or {}
        message = " ".join(str(error.get("message", error) if isinstance(error, dict) else error).split())[
            :300
        ]
        return BatchResult(custom_id, None, _error_kind(code), message or f"HTTP {code}")
    choice = (body.get("choices") or [{}])[0]
    text = (choice.get("message") or {}).get("content") or ""
    truncated = choice.get("finish_reason") == "length"
    if not truncated and not text.strip():
        return BatchResult(custom_id, None, "empty_answer", "the model returned an empty body")
    usage = body.get("usage") or {}
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    return BatchResult(custom_id, llm.Completion(
        text=text, prompt_tokens=prompt, completion_tokens=completion,
        cost_usd=batch_cost(settings, settings.model, prompt, completion), attempts=1,
        cached_prompt_tokens=cached, truncated=truncated,
    ))  # fmt: skip


def _error_kind(code: int | None) -> str:
    if code == 429:
        return "rate_limit"
    if code is None or code >= 500:
        return "server_error"
    return {400: "bad_request", 401: "authentication", 403: "permission", 404: "not_found"}.get(code, "error")


def batch_cost(settings: Settings, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """What the tokens cost at the batch price: litellm's where its map has one for the model, else the direct
    price times AGENT_SIGNALS_BATCH_DISCOUNT (0 for a model litellm has no price for)."""
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return 0.0
    batch_in, batch_out = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    if batch_in is not None and batch_out is not None:
        return prompt_tokens * batch_in + completion_tokens * batch_out
    direct = prompt_tokens * (info.get("input_cost_per_token") or 0) + completion_tokens * (
        info.get("output_cost_per_token") or 0
    )
    return direct * settings.batch_discount
