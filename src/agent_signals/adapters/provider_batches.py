"""The provider batch mode's side of litellm (AGENT_SIGNALS_BATCH_MODE=provider): chat requests written as
OpenAI Batch API JSONL, uploaded and run as one provider batch through litellm's files and batches API;
the batch looked at, found again by its key, cancelled; its output and error files read back as one result
per request, priced at the batch price.

Each line's body is what a direct call (llm.complete) sends to the provider: llm.chat_request gives the
request litellm takes, and litellm's own provider config turns it into the provider's body (model name
without litellm's prefix, max_completion_tokens and no temperature for the o-series and gpt-5, ...).

Errors are a direct call's (llm._with_retries): timeouts, connection faults, 429 and 5xx retried, then
ModelUnavailable; 400/401/403/404 are ModelMisconfigured at once (AGENT_SIGNALS_MODEL). litellm passes the
OpenAI SDK's exceptions through unmapped here (openai.NotFoundError, not litellm.NotFoundError): llm.py counts
both. The SDK's own retries are off (max_retries=0): the policy is llm.py's.

Providers (litellm 1.106.12: litellm/batches/main.py, litellm/files/main.py). The mode needs all of create
file, create / retrieve / cancel / list batch and file content with this JSONL as it is:
- `openai/<model>`: OpenAI's Batch API. Key: AGENT_SIGNALS_API_KEY, else OPENAI_API_KEY; base:
  AGENT_SIGNALS_API_BASE, else OPENAI_BASE_URL / OPENAI_API_BASE, else api.openai.com (the same as a direct
  call). Also any OpenAI-compatible server that implements /v1/files and /v1/batches (tests/batch_server.py).
- `azure/<deployment>`: Azure OpenAI's Batch API, through a deployment of type Global-Batch (or Data Zone
  Batch). Key AGENT_SIGNALS_API_KEY, else AZURE_API_KEY / AZURE_OPENAI_API_KEY; base AGENT_SIGNALS_API_BASE,
  else AZURE_API_BASE; AZURE_API_VERSION (2024-10-21 or later) must be set. The lines and the batch name the
  endpoint `/chat/completions`, as Azure's documentation writes them (not tested against Azure here). litellm
  lists Azure's batches without paging (it drops `after`), so find() sees only the newest page of them.
- `hosted_vllm/<model>` and `litellm_proxy/<model>`: litellm sends these to the OpenAI files and batches
  endpoints of the API base (a LiteLLM proxy runs batches for the models it serves; a plain vLLM server has
  no batch endpoints). Its batch calls read neither HOSTED_VLLM_* nor LITELLM_PROXY_* variables, so
  AGENT_SIGNALS_API_BASE and AGENT_SIGNALS_API_KEY must both be set (any key for a server without one).
Not supported: Anthropic, Vertex AI, Bedrock, Gemini, Mistral and xAI (litellm has batch calls for some of
them, in their own formats and file stores), models litellm answers through the Responses API only, and
the built-in offline model (no batch API: tests use the local server over it, tests/batch_server.py).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import litellm
import openai
from litellm.types.utils import LlmProviders
from litellm.utils import ProviderConfigManager, get_optional_params

from agent_signals.adapters import llm
from agent_signals.adapters.providers import provider_kwargs
from agent_signals.config import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")

METADATA_KEY = "agent_signals_batch"  # the batch's metadata entry naming its key (find() looks for it)
COMPLETION_WINDOW = "24h"
ENDPOINT = "/v1/chat/completions"
ENDPOINTS = {"azure": "/chat/completions"}  # providers that name the endpoint otherwise
SUPPORTED = ("openai", "azure", "hosted_vllm", "litellm_proxy")
NEEDS_BASE_AND_KEY = frozenset({"hosted_vllm", "litellm_proxy"})
UNSUPPORTED = "Anthropic, Vertex AI, Bedrock, Gemini, Mistral or xAI"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
LIST_PAGE = 100  # batches per page when looking for one (OpenAI's largest page)
FIND_MARGIN = timedelta(hours=1)  # how far back submit() looks for a batch an earlier attempt created
# aretrieve_batch: litellm's success logging would download a completed batch's output and error files again
# (to price the batch) in a background task; skipped, it also leaves no coroutine of it never awaited
QUIET = {"litellm_metadata": {"batch_ignore_default_logging": True}}


@dataclass(frozen=True)
class BatchRequest:
    """One chat request of a batch: the rendered prompt of one call, answering prompt `family` (its
    response_format is structured.response_format's)."""

    custom_id: str
    prompt: list[dict]
    family: str = "extract"
    max_tokens: int | None = (
        None  # this request's budget (None: the batch's, else AGENT_SIGNALS_MAX_ANSWER_TOKENS)
    )


@dataclass(frozen=True)
class BatchStatus:
    """A provider batch as last seen."""

    batch_id: str
    status: str  # validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled
    output_file_id: str | None
    error_file_id: str | None
    total: int
    completed: int
    failed: int
    created_at: datetime | None
    error: str | None  # why the batch failed (its validation errors), one line

    @property
    def ended(self) -> bool:
        """Nothing more will come of it: its files (if any) are final."""
        return self.status in ENDED


def _provider(settings: Settings) -> tuple[str, str]:
    """(the model's name at its provider, litellm's provider name) of AGENT_SIGNALS_MODEL."""
    name, provider, _key, _base = litellm.get_llm_provider(settings.model.name)
    return name, provider


def check_provider(settings: Settings) -> None:
    """Raise ModelMisconfigured when AGENT_SIGNALS_MODEL cannot run in this mode (module docstring)."""
    setting = f"AGENT_SIGNALS_MODEL={settings.model.name}"
    off = "or set AGENT_SIGNALS_BATCH_MODE=off"
    supported = "openai/..., azure/..., hosted_vllm/... or litellm_proxy/..."
    try:
        name, provider = _provider(settings)
    except Exception:  # a model string litellm cannot place (the offline model before its registration)
        name, provider = settings.model.name, settings.model.name.partition("/")[0]
    if provider not in SUPPORTED:
        raise llm.ModelMisconfigured(
            "unsupported",
            f"{setting}: AGENT_SIGNALS_BATCH_MODE=provider does not support provider {provider!r} (it "
            f"writes OpenAI Batch API requests; {UNSUPPORTED} batches take other formats, the offline model "
            "has none)",
            f"name a {supported} model in AGENT_SIGNALS_MODEL, {off}",
        )
    if provider in NEEDS_BASE_AND_KEY and not (
        settings.model.api_base and settings.model.api_key is not None
    ):
        raise llm.ModelMisconfigured(
            "unsupported",
            f"{setting}: litellm's batch calls to {provider} read neither its variables nor its defaults",
            "set AGENT_SIGNALS_API_BASE and AGENT_SIGNALS_API_KEY for AGENT_SIGNALS_BATCH_MODE=provider, "
            + off,
        )
    try:
        mode = litellm.get_model_info(settings.model.name).get("mode")
    except Exception:  # a model litellm has no entry for
        mode = None
    if mode == "responses":
        raise llm.ModelMisconfigured(
            "unsupported",
            f"{setting}: litellm answers {name} through the Responses API only, not chat completions",
            f"name a chat model in AGENT_SIGNALS_MODEL, {off}",
        )


def _call_kwargs(settings: Settings) -> dict[str, Any]:
    """What every files and batches call carries: the provider settings, litellm's provider name, the
    call's timeout, and no retries of the SDK's own."""
    return {
        **provider_kwargs(settings),
        "custom_llm_provider": _provider(settings)[1],
        "timeout": settings.model.timeout_s,
        "max_retries": 0,
    }


async def _run(settings: Settings, call: Callable[[], Awaitable[T]]) -> T:
    """One call with a direct call's retries and errors. The SDK refusing to start without a key (an
    OpenAIError that is no API error) is ModelMisconfigured too: no retry can help."""
    try:
        return (await llm._with_retries(settings, call))[0]
    except llm.ModelUnavailable as exc:
        cause = exc.__cause__
        if isinstance(cause, openai.OpenAIError) and not isinstance(cause, openai.APIError):
            raise llm.ModelMisconfigured(
                "authentication",
                f"AGENT_SIGNALS_MODEL={settings.model.name}: {one_line(str(cause))}",
                "set AGENT_SIGNALS_API_KEY (or the provider's key variable, e.g. OPENAI_API_KEY)",
            ) from cause
        raise


def request_line(settings: Settings, request: BatchRequest, max_tokens: int | None = None) -> dict:
    """The batch input line of one request: {"custom_id", "method", "url", "body"}, the body being what a
    direct call of llm.complete sends (litellm's transformation of llm.chat_request for the provider)."""
    budget = request.max_tokens or max_tokens or settings.model.max_answer_tokens
    params = llm.chat_request(settings, request.prompt, family=request.family, max_tokens=budget)
    name, provider = _provider(settings)
    messages = copy.deepcopy(params["messages"])
    optional = get_optional_params(
        model=name,
        custom_llm_provider=provider,
        messages=messages,
        temperature=params["temperature"],
        max_tokens=params["max_tokens"],
        response_format=params["response_format"],
        drop_params=True,
    )
    config = ProviderConfigManager.get_provider_chat_config(model=name, provider=LlmProviders(provider))
    if config is None:
        raise ValueError(f"litellm has no chat request format for {settings.model.name}")
    body = dict(
        config.transform_request(
            model=name, messages=messages, optional_params=optional, litellm_params={}, headers={}
        )
    )
    body.update(body.pop("extra_body", None) or {})  # the OpenAI SDK merges extra_body into the request body
    if body.get("stream") is False:  # the SDK leaves a false `stream` out
        body.pop("stream")
    if body.get("response_format") is None:
        body.pop("response_format", None)
    url = ENDPOINTS.get(provider, ENDPOINT)
    return {"custom_id": request.custom_id, "method": "POST", "url": url, "body": body}


def jsonl(settings: Settings, requests: list[BatchRequest], max_tokens: int | None = None) -> bytes:
    """The batch input file of `requests` (at least one, custom ids unique)."""
    if not requests:
        raise ValueError("a batch needs at least one request")
    ids = [r.custom_id for r in requests]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"custom ids must be unique in a batch, repeated: {', '.join(dupes[:5])}")
    lines = (json.dumps(request_line(settings, r, max_tokens), ensure_ascii=False) for r in requests)
    return ("\n".join(lines) + "\n").encode()


async def submit(
    settings: Settings, requests: list[BatchRequest], key: str, max_tokens: int | None = None
) -> str:
    """Upload the requests as one JSONL file (purpose `batch`) and create a batch of them (24h window,
    metadata {METADATA_KEY: key}); returns the provider's batch id. A create retried after an error first
    looks for a batch with this key (the provider may have made it and lost its answer): never two."""
    data = jsonl(settings, requests, max_tokens)
    kwargs = _call_kwargs(settings)
    started = datetime.now(UTC)
    filename = f"agent-signals-{key}.jsonl"

    async def upload() -> str:
        return (await litellm.acreate_file(file=(filename, data), purpose="batch", **kwargs)).id

    file_id = await _run(settings, upload)
    attempts = 0

    async def create() -> str:
        nonlocal attempts
        attempts += 1
        if attempts > 1:
            found = await _find(settings, key, started - FIND_MARGIN, _page(settings))
            if found is not None:
                log.warning("batch %s of key %s was created by an attempt that failed", found.batch_id, key)
                return found.batch_id
        batch = await litellm.acreate_batch(
            completion_window=COMPLETION_WINDOW,
            endpoint=ENDPOINTS.get(kwargs["custom_llm_provider"], ENDPOINT),
            input_file_id=file_id,
            metadata={METADATA_KEY: key},
            **kwargs,
        )
        return batch.id

    batch_id = await _run(settings, create)
    log.info("batch %s submitted: %d request(s), key %s", batch_id, len(requests), key)
    return batch_id


def _status(batch: Any) -> BatchStatus:
    counts = batch.request_counts
    errors = list(getattr(batch.errors, "data", None) or [])
    error = None
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        error = one_line(f"{first.code or 'error'}: {first.message or ''}{more}")
    return BatchStatus(
        batch_id=batch.id,
        status=batch.status,
        output_file_id=batch.output_file_id,
        error_file_id=batch.error_file_id,
        total=int(getattr(counts, "total", 0) or 0),
        completed=int(getattr(counts, "completed", 0) or 0),
        failed=int(getattr(counts, "failed", 0) or 0),
        created_at=datetime.fromtimestamp(batch.created_at, UTC) if batch.created_at else None,
        error=error,
    )


async def retrieve(settings: Settings, batch_id: str) -> BatchStatus:
    """The batch as the provider has it now."""
    kwargs = _call_kwargs(settings)

    async def call() -> BatchStatus:
        return _status(await litellm.aretrieve_batch(batch_id=batch_id, **QUIET, **kwargs))

    return await _run(settings, call)


async def cancel(settings: Settings, batch_id: str) -> BatchStatus:
    """Ask the provider to cancel the batch; returns it as the provider has it then (`cancelling` until
    it ends; what it answered before stays in its files)."""
    kwargs = _call_kwargs(settings)

    async def call() -> BatchStatus:
        return _status(await litellm.acancel_batch(batch_id=batch_id, **kwargs))

    return await _run(settings, call)


Page = Callable[[str | None], Awaitable[Any]]


def _page(settings: Settings) -> Page:
    """A call listing one page of the provider's batches, newest first, after the batch `after`."""
    kwargs = _call_kwargs(settings)

    async def page(after: str | None) -> Any:
        return await litellm.alist_batches(after=after, limit=LIST_PAGE, **kwargs)

    return page


async def _find(settings: Settings, key: str, since: datetime, page: Page) -> BatchStatus | None:
    after: str | None = None
    seen: set[str] = set()
    while True:
        listed = await page(after)
        batches = [b for b in (getattr(listed, "data", None) or []) if b.id not in seen]
        if not batches:  # the end, or a provider that does not page (the same page again)
            return None
        for batch in batches:
            seen.add(batch.id)
            if batch.created_at and batch.created_at < since.timestamp():
                return None  # newest first: the rest is older still
            if (batch.metadata or {}).get(METADATA_KEY) == key:
                return _status(batch)
        if not getattr(listed, "has_more", False):
            return None
        after = batches[-1].id


async def find(settings: Settings, key: str, since: datetime) -> BatchStatus | None:
    """The provider's batch whose metadata carries `key`, created at `since` or later (None: there is
    none): how a batch created by a run that crashed before recording it is found again. Pages through the
    provider's list, newest first, and stops at the first batch created before `since`."""
    page = _page(settings)

    async def retried(after: str | None) -> Any:
        async def call() -> Any:
            return await page(after)

        return await _run(settings, call)

    return await _find(settings, key, since, retried)


async def file_text(settings: Settings, file_id: str) -> str:
    """The text of one of the provider's files (a batch's output or error file)."""
    kwargs = _call_kwargs(settings)

    async def call() -> str:
        response = await litellm.afile_content(file_id=file_id, **kwargs)
        return response.content.decode("utf-8")

    return await _run(settings, call)


def one_line(text: str) -> str:
    return " ".join(text.split())[:300]
