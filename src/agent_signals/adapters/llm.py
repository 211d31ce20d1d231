"""Every model call goes through here: litellm, retries with backoff for transient faults, usage and cost.

"The model failed" (timeout, rate limit, server error, empty body: retried, then ModelUnavailable) is kept
apart from "the answer is invalid" (answers.InvalidAnswer), which is never retried within a run, and from
"the model is misconfigured" (no key, a key refused, an unknown model, a request the provider rejects:
ModelMisconfigured), which no retry and no other user can fix: the run stops at the first one. A retry waits
at least what the provider's Retry-After header asks (up to AGENT_SIGNALS_RETRY_AFTER_MAX_S).

Every call carries the provider settings and cache hints of providers.py; the prompt tokens the provider
read from its cache are counted, with the call's cost. Pacing under a provider's quota is pacing.py's, and
the offline provider's registration providers.py's.

An answer cut at its token budget (finish_reason `length`) is asked again once with a larger budget, then
TruncatedAnswer.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from typing import TypeVar

import litellm
import openai

from agent_signals.adapters.providers import provider_kwargs, with_cache_hints
from agent_signals.adapters.structured import response_format
from agent_signals.config import Settings
from agent_signals.errors import ConfigurationError

log = logging.getLogger(__name__)
T = TypeVar("T")

litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" or "Provider List" banners on errors
litellm.set_verbose = False

RETRYABLE = (
    litellm.Timeout,
    litellm.RateLimitError,
    litellm.APIConnectionError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
    # the OpenAI SDK's own, which litellm's files and batches calls pass through unmapped (batches.py):
    # a timeout or a connection fault (APITimeoutError is an APIConnectionError), 429, 5xx
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


class ModelUnavailable(Exception):
    """The model could not give an answer (after retries, where retrying made sense)."""

    def __init__(self, kind: str, message: str, attempts: int) -> None:
        super().__init__(f"{kind} after {attempts} attempt(s): {message}")
        self.kind = kind
        self.attempts = attempts


class ModelMisconfigured(ConfigurationError):
    """The model cannot work for anyone as configured: retrying or moving to the next user cannot help."""

    def __init__(self, kind: str, message: str, hint: str) -> None:
        super().__init__(message, hint)
        self.kind = kind  # authentication, permission, not_found, bad_request


# Rejected requests that depend on one user's input, not on the configuration: that user fails, the run goes on
PER_INPUT = (litellm.ContextWindowExceededError, litellm.ContentPolicyViolationError)
MISCONFIGURED = {  # by exception type, then by HTTP status for errors litellm left unmapped
    "authentication": (litellm.AuthenticationError, 401),
    "permission": (litellm.PermissionDeniedError, 403),
    "not_found": (litellm.NotFoundError, 404),
    "bad_request": (litellm.BadRequestError, 400),
}


# What a provider's client says when no usable key reached it, whatever exception litellm makes of it: the
# OpenAI SDK's "Missing credentials" comes as a 500, Gemini's "Missing Gemini API key" as a connection error.
NO_CREDENTIALS = re.compile(
    r"missing credentials|missing [\w .-]{0,40}\bapi[ _-]?key|api_key client option must be set",
    re.IGNORECASE,
)


# a provider's error that repeats the key it was given ("Incorrect API key provided: sk-..."): the error line
# is printed and logged, so the key is not
_KEY_SAID = re.compile(r"(\b(?:api[ _-]?)?key(?: provided)?\s*[:=]\s*)[^\s.,;]+", re.IGNORECASE)


def _misconfigured(exc: BaseException, setting: str, model: str) -> ModelMisconfigured | None:
    """The exception as a ModelMisconfigured (None when retrying or another user might succeed): a missing
    key of any exception type, else an authentication, permission, not-found or bad-request error."""
    if isinstance(exc, PER_INPUT):
        return None
    if NO_CREDENTIALS.search(str(exc)[:500]):
        kind = "authentication"
    elif isinstance(exc, RETRYABLE):
        return None
    else:
        kind = next((k for k, (cls, _code) in MISCONFIGURED.items() if isinstance(exc, cls)), None)
    if kind is None:
        status = getattr(exc, "status_code", None)
        kind = next((k for k, (_cls, code) in MISCONFIGURED.items() if status == code), None)
    if kind is None:
        return None
    detail = _KEY_SAID.sub(r"\1[hidden]", " ".join(str(exc).split())[:300])
    hints = {
        "authentication": f"check the API key litellm uses for {model} (AGENT_SIGNALS_API_KEY, else the "
        "provider's variable, e.g. OPENAI_API_KEY)",
        "permission": f"the key is not allowed to use {model}: check its access, or {setting}",
        "not_found": f"check {setting} (a litellm model string, e.g. openai/gpt-4o-mini) and the API base",
        "bad_request": f"check {setting} and the provider's API base: it refused the request",
    }
    return ModelMisconfigured(
        kind, f"{setting}={model}: {kind.replace('_', ' ')} error: {detail}", hints[kind]
    )


class EmptyAnswer(Exception):
    pass


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    attempts: int
    cached_prompt_tokens: int = 0  # of prompt_tokens, read from the provider's prompt cache
    truncated: bool = False  # cut at max_tokens (finish_reason `length`): not a whole answer

    def plus(self, later: Completion) -> Completion:
        """`later`, answering the same prompt after this one, with the usage of both."""
        return replace(
            later,
            prompt_tokens=self.prompt_tokens + later.prompt_tokens,
            completion_tokens=self.completion_tokens + later.completion_tokens,
            cost_usd=self.cost_usd + later.cost_usd,
            attempts=self.attempts + later.attempts,
            cached_prompt_tokens=self.cached_prompt_tokens + later.cached_prompt_tokens,
        )


class TruncatedAnswer(ModelUnavailable):
    """The answer was cut at its token budget, also with the larger one: the prompt asks for more than the
    model may write (it counts against the user, whose messages made it so long). `spent` is the usage of
    the calls, to be counted like any other."""

    def __init__(self, budgets: list[int], spent: Completion) -> None:
        super().__init__(
            "truncated",
            f"the answer was cut at max_tokens={' and again at '.join(map(str, budgets))} (finish_reason "
            "length); raise AGENT_SIGNALS_MAX_ANSWER_TOKENS if the model can write more",
            spent.attempts,
        )
        self.spent = spent


def cached_tokens(usage: object) -> int:
    """Prompt tokens the provider read from its cache (litellm maps Anthropic's cache_read_input_tokens to
    OpenAI's prompt_tokens_details.cached_tokens); 0 when it does not say."""
    details = getattr(usage, "prompt_tokens_details", None)
    return int(getattr(details, "cached_tokens", 0) or 0)


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the provider asked to wait before the next request (Retry-After in seconds or as an HTTP
    date, or retry-after-ms), None when it did not say."""
    headers = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None
    )
    if not isinstance(headers, Mapping):
        return None
    headers = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def retry_delay_s(settings: Settings, attempt: int, exc: BaseException) -> float:
    """The wait before retry `attempt`: exponential backoff with jitter, at least the provider's Retry-After
    (capped at AGENT_SIGNALS_RETRY_AFTER_MAX_S)."""
    backoff = settings.model.retry_backoff_s * (2 ** (attempt - 1)) * (0.5 + random.random())
    asked = retry_after_s(exc)
    return backoff if asked is None else max(backoff, min(asked, settings.model.retry_after_max_s))


def _kind(exc: BaseException) -> str:
    if isinstance(exc, (asyncio.TimeoutError, litellm.Timeout, openai.APITimeoutError)):
        return "timeout"
    if isinstance(exc, (litellm.RateLimitError, openai.RateLimitError)):
        return "rate_limit"
    if isinstance(exc, EmptyAnswer):
        return "empty_answer"
    if isinstance(exc, (litellm.APIConnectionError, openai.APIConnectionError)):
        return "connection"
    if isinstance(exc, RETRYABLE):
        return "server_error"
    if isinstance(exc, (litellm.AuthenticationError, openai.AuthenticationError)):
        return "authentication"
    if isinstance(
        exc, (litellm.NotFoundError, litellm.BadRequestError, openai.NotFoundError, openai.BadRequestError)
    ):
        return "bad_request"
    return "error"


def _cost(response: litellm.ModelResponse) -> float:
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # a model litellm has no price for: tokens are still counted
        return 0.0


async def _with_retries(
    settings: Settings, call: Callable[[], Awaitable[T]], setting: str = "AGENT_SIGNALS_MODEL"
) -> tuple[T, int]:
    """Run one model request with the timeout and retry policy; returns (result, attempts). Raises
    ModelMisconfigured at once for what no retry can fix, ModelUnavailable otherwise."""
    attempt = 0
    while True:
        attempt += 1
        try:
            # litellm does not enforce timeout= for custom providers: the deadline is ours
            return await asyncio.wait_for(call(), timeout=settings.model.timeout_s), attempt
        except Exception as exc:
            model = (
                settings.model.name if setting == "AGENT_SIGNALS_MODEL" else settings.model.embedding_model
            )
            misconfigured = _misconfigured(exc, setting, model)  # no key, a key refused, ...: no retry helps
            if misconfigured is not None:
                raise misconfigured from exc
            if (
                not isinstance(exc, (TimeoutError, EmptyAnswer, *RETRYABLE))
                or attempt > settings.model.max_retries
            ):
                raise ModelUnavailable(_kind(exc), str(exc)[:500], attempt) from exc
            delay = retry_delay_s(settings, attempt, exc)
            log.warning("model call failed (%s), retry %d in %.1fs", _kind(exc), attempt, delay)
            await asyncio.sleep(delay)


def chat_request(settings: Settings, messages: list[dict], *, family: str, max_tokens: int) -> dict:
    """The request of one chat call answering prompt `family`, as litellm takes it: the model, the messages
    with their cache hints, temperature 0, the token budget and the family's response_format (None: none).
    complete() sends it directly; batches.py writes what litellm makes of it for the provider into a batch,
    so the two cannot drift."""
    return {
        "model": settings.model.name,
        "messages": with_cache_hints(messages, settings.model.name),
        "temperature": 0,
        "max_tokens": max_tokens,
        "response_format": response_format(settings, family),
    }


async def complete(
    messages: list[dict], settings: Settings, *, family: str = "extract", max_tokens: int | None = None
) -> Completion:
    """One chat completion answering prompt `family` (its answer schema is the response_format in mode
    json_schema, structured.py), with retries. An answer cut at max_tokens is asked again once with a larger
    budget. Raises ModelUnavailable (TruncatedAnswer when cut again); never returns an empty or cut text."""
    budget = max_tokens or settings.model.max_answer_tokens

    async def call() -> Completion:
        response = await litellm.acompletion(
            **chat_request(settings, messages, family=family, max_tokens=budget),
            **provider_kwargs(settings),
            drop_params=True,
            num_retries=0,
        )
        choice = response.choices[0]
        text = choice.message.content
        truncated = choice.finish_reason == "length"
        if not truncated and (not text or not text.strip()):
            raise EmptyAnswer("the model returned an empty body")
        usage = response.usage
        return Completion(
            text=text or "",
            prompt_tokens=int(usage.prompt_tokens or 0),
            completion_tokens=int(usage.completion_tokens or 0),
            cost_usd=_cost(response),
            attempts=0,
            cached_prompt_tokens=cached_tokens(usage),
            truncated=truncated,
        )

    completion, attempts = await _with_retries(settings, call)
    completion = replace(completion, attempts=attempts)
    budgets = [budget]
    larger = larger_budget(settings.model.name, budget)
    if completion.truncated and larger is not None:
        log.warning("the answer was cut at max_tokens=%d: asking again with %d", budget, larger)
        budget = larger
        budgets.append(budget)
        again, attempts = await _with_retries(settings, call)
        completion = completion.plus(replace(again, attempts=attempts))
    if completion.truncated:
        raise TruncatedAnswer(budgets, completion)
    return completion


def larger_budget(model: str, budget: int) -> int | None:
    """The max_tokens of the second try of a cut answer: twice the first, within the model's max output
    tokens when litellm knows them (None: no larger budget is possible)."""
    try:
        known = litellm.get_model_info(model).get("max_output_tokens")
    except Exception:  # a model litellm has no entry for
        known = None
    larger = min(2 * budget, known) if known else 2 * budget
    return larger if larger > budget else None


@dataclass(frozen=True)
class Embeddings:
    vectors: list[list[float]]
    prompt_tokens: int
    cost_usd: float


async def embed(texts: list[str], settings: Settings) -> Embeddings:
    """Embed texts in one call (AGENT_SIGNALS_EMBEDDING_MODEL). Raises ModelUnavailable."""

    async def call() -> Embeddings:
        response = await litellm.aembedding(
            model=settings.model.embedding_model, input=texts, num_retries=0, **provider_kwargs(settings)
        )
        vectors = [item["embedding"] for item in sorted(response.data, key=lambda d: d["index"])]
        if len(vectors) != len(texts):
            raise EmptyAnswer(f"{len(vectors)} embeddings for {len(texts)} texts")
        bad = {len(v) for v in vectors} - {settings.model.embedding_dim}
        if bad:
            raise ModelUnavailable(
                "bad_dimension",
                f"{settings.model.embedding_model} returns {bad.pop()} dimensions, AGENT_SIGNALS_EMBEDDING_DIM is "
                f"{settings.model.embedding_dim}",
                1,
            )
        usage = getattr(response, "usage", None)
        return Embeddings(vectors, int(getattr(usage, "prompt_tokens", 0) or 0), _cost(response))

    return (await _with_retries(settings, call, "AGENT_SIGNALS_EMBEDDING_MODEL"))[0]
