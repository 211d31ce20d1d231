"""Settings, built once at run time from the environment (prefix ``AGENT_SIGNALS_``) and passed down.

Nothing in the package reads the environment anywhere else. The secrets (database_url, api_key,
extra_headers) are left out of every serialised form (model_dump, JSON, repr): a flow's settings parameter
is stored among its flow run's parameters in Prefect's API without them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from agent_signals import setting_checks
from agent_signals.errors import SettingsError
from agent_signals.model_names import OFFLINE_PROVIDER

PROJECT_DIR = Path(__file__).resolve().parents[2]
# The languages signals may be written in: the Latin-script languages whose words core/screening/signal_shape.py tells
# apart (wordfreq's word lists of that script).
SIGNAL_LANGUAGES = (
    "ca", "cs", "da", "de", "en", "es", "fi", "fil", "fr", "hu", "id", "is", "it", "lt", "lv", "ms", "nb",
    "nl", "pl", "pt", "ro", "sh", "sk", "sl", "sv", "tr", "vi",
)  # fmt: skip
# signals in the language each user writes in: no language check (the grammar checks read English text only)
ANY_LANGUAGE = "any"
DEFAULT_KINDS = (
    "role",
    "team",
    "ownership",
    "expertise",
    "communication",
    "writing",
    "preference",
    "personal",
    "location",  # where the user lives or is based (4% of msc-valid's facts; a time zone for an assistant)
    "education",  # what or where they study or studied
)
OFFLINE_MODEL = f"{OFFLINE_PROVIDER}/rules"
OFFLINE_EMBEDDING_MODEL = f"{OFFLINE_PROVIDER}/hash-256"
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="AGENT_SIGNALS_", extra="ignore", frozen=True, populate_by_name=True
    )

    database_url: str | None = Field(
        default=None,
        validation_alias="DATABASE_URL",
        exclude=True,
        repr=False,
        description="PostgreSQL URL. Unset: an embedded PostgreSQL (pgserver) under data_dir.",
    )
    data_dir: Path = Field(
        default=PROJECT_DIR / ".agent-signals",
        description="Folder of the embedded PostgreSQL's data (git-ignored).",
    )
    database_name: str = Field(default="agent_signals", description="Database used on the embedded server.")
    project_dir: Path = Field(
        default=PROJECT_DIR, description="Folder holding prompts/ and dbt/ (the SQL is package data)."
    )
    model: str = Field(default=OFFLINE_MODEL, description="litellm model string used for extraction.")
    api_base: str | None = Field(
        default=None,
        description="API base of the chat and embedding models' provider (e.g. http://127.0.0.1:8080/v1); "
        "unset: litellm's own (the provider's variables such as OPENAI_API_BASE).",
    )
    api_key: SecretStr | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="API key sent to the chat and embedding models' provider (never logged); unset: the "
        "provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).",
    )
    extra_headers: Annotated[dict[str, str] | None, NoDecode] = Field(
        default=None,
        exclude=True,
        repr=False,
        description='HTTP headers added to every model request, a JSON object: {"X-Team": "signals"}.',
    )
    retry_after_max_s: float = Field(
        default=60.0,
        ge=0,
        description="The longest wait a provider's Retry-After header may ask for before a retry.",
    )
    prompt_version: str = Field(
        default="v5",
        pattern=r"^v[0-9]+$",
        description="Version of the extraction prompt (prompts/extract/<version>.*); a new prompt is a new "
        "version, tried with `agent-signals replay` before it is promoted here.",
    )
    concurrency: int = Field(default=8, ge=1, le=256, description="Users extracted at the same time.")
    max_retries: int = Field(default=3, ge=0, le=10, description="Retries of a model call that failed.")
    retry_backoff_s: float = Field(default=1.0, ge=0, description="First retry delay; doubles each retry.")
    timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one model call.")
    max_prompt_tokens: int = Field(
        default=6000,
        ge=1000,
        description="No extraction prompt is larger; a user's new messages are chunked into calls past this "
        "budget, a message larger than a prompt is cut.",
    )
    max_answer_tokens: int = Field(
        default=1024,
        ge=64,
        description="max_tokens of one model call. An answer cut at this budget (finish_reason `length`) is "
        "asked again once with twice the budget (within the model's max output tokens when litellm knows "
        "them); cut again, the user fails with `truncated` and their messages stay unread.",
    )
    structured_answers: Literal["auto", "json_schema", "json_object_schema", "json_object", "none"] = Field(
        default="auto",
        description="How the model is asked for a JSON answer: `json_schema` (response_format with the prompt "
        "family's answer schema, without its length limits, which validation enforces), `json_object_schema` "
        "(JSON mode carrying that schema: llama-cpp-python's server), `json_object` (JSON mode), `none` (the "
        "prompt alone); `auto`: json_schema where litellm says the model supports a "
        "response schema, else json_object where it supports response_format, else none. Each run records "
        "the mode it used (ops.runs.answer_mode).",
    )
    failing_user_attempts: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Failed attempts in a row (an answer that cannot be parsed, or a model error caused by the "
        "user's messages) after which the messages those calls read are set aside (ops.set_aside) and the "
        "user's other messages are read again.",
    )
    failing_user_backoff_s: float = Field(
        default=4 * 3600.0,
        ge=0,
        description="A user whose attempt failed is not tried again for this long after the first failure, "
        "twice as long after the second, and so on (runs that honour watermarks; backfills do not wait).",
    )
    failing_user_backoff_max_s: float = Field(
        default=24 * 3600.0, ge=0, description="The longest wait between two attempts of a failing user."
    )
    kinds: Annotated[tuple[str, ...], NoDecode] = Field(
        default=DEFAULT_KINDS, description="The closed set of signal kinds."
    )
    offline_latency_ms: float = Field(
        default=0.0,
        ge=0,
        description="Simulated latency of each offline model call (benchmarks, fault tests).",
    )
    embedding_model: str = Field(
        default=OFFLINE_EMBEDDING_MODEL,
        description="litellm embedding model; offline/hash-<dim> is the built-in deterministic one.",
    )
    embedding_dim: int = Field(
        default=256, ge=2, le=16000, description="Dimension of signals.signals.embedding (checked at start)."
    )
    near_duplicate_similarity: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="Cosine similarity above which a new signal is a re-statement of an existing one.",
    )
    exclusive_kinds: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("role", "team"),
        description="Kinds where the user's own signal excludes any inferred one (the user's word wins).",
    )
    decay_base_days: float = Field(
        default=30.0,
        gt=0,
        description="S = base_days * (1 + mention_boost * (mentions - 1)) in exp(-days / S).",
    )
    decay_mention_boost: float = Field(default=0.5, ge=0, description="How much each mention slows decay.")
    archive_below: float = Field(
        default=0.05,
        ge=0,
        lt=1,
        description="Contextual signals whose decay score falls under this are archived.",
    )
    summaries: bool = Field(
        default=True, description="Rebuild per-user summaries (one model call per changed user)."
    )
    signal_language: str = Field(
        default="en",
        description="The language signals, summaries and merged signals are written in (ISO 639-1): the "
        "prompts ask for it, and a model's text in another language or script is held for review, never "
        "written where agents read (core/screening/signal_shape.py). One of the Latin-script languages the check "
        "tells apart: ca cs da de en es fi fil fr hu id is it lt lv ms nb nl pl pt ro sh sk sl sv tr vi. "
        "The checks of grammar (person, requests, imperatives) are English ones. `any`: signals in the language "
        "each user writes in, with no language check (weaker: other languages meet only the phrase tables).",
    )
    special_categories: Literal["skip", "keep"] = Field(
        default="skip",
        description="Inferred candidates stating a special category of personal data (GDPR Art. 9: health, "
        "religion, sexual orientation, ...; criminal records, Art. 10): `skip` (not written, counted as "
        "skipped_special, such clauses redacted from evidence quotes) or `keep` (written as any other fact: "
        "only for a deployment with a lawful basis to process them). The user's own signals may hold anything.",
    )
    review: Literal["hold", "reject"] = Field(
        default="hold",
        description="Candidates screening holds for review (what no deterministic check can decide: one citing "
        "a message that hides text, ...): `hold` (stored as signals of status pending, out of every view, "
        "summary and count until `agent-signals review approve` or signals.review_approve makes them active) "
        "or `reject` (not written, recorded in ops.rejected_actions and counted as skipped_review).",
    )
    max_run_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Budget of one run in tokens (prompt, completion, embedding); unset: none.",
    )
    max_run_cost_usd: float | None = Field(
        default=None, gt=0, description="Budget of one run in USD (litellm's cost tracking); unset: none."
    )
    requests_per_minute: int | None = Field(default=None, ge=1, description="Model calls per minute at most.")
    tokens_per_minute: int | None = Field(default=None, ge=1, description="Prompt tokens per minute at most.")
    schedule_cron: str | None = Field(
        default=None,
        description="Cron of the scheduled deployment for `serve` (unset: deploy/prefect.yaml's).",
    )
    schedule_timezone: str | None = Field(
        default=None, description="Timezone of that cron (unset: deploy/prefect.yaml's)."
    )
    shards: int = Field(
        default=4, ge=1, le=4096, description="Stable-hash buckets users are sharded into (unit of work)."
    )
    shard_size: int = Field(
        default=500, ge=1, description="Users per Prefect task at most (a larger shard is cut in parts)."
    )
    shards_in_flight: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Shards processed at once by the local runner: one shard's writes overlap the next "
        "one's model calls (model calls in flight stay within AGENT_SIGNALS_CONCURRENCY).",
    )
    runner: Literal["local", "dask", "deployments"] = Field(
        default="local",
        description="Where shards run: in the flow's process (bounded async concurrency), on Dask, or as "
        "flow runs of the shard deployment spread over a work pool's workers.",
    )
    shard_deployment: str = Field(
        default="process-shard/shard", description="Deployment each shard runs as for runner=deployments."
    )
    shard_run_timeout_s: float = Field(
        default=3600, gt=0, description="How long a run waits for its shard flow runs (runner=deployments)."
    )
    dask_address: str | None = Field(
        default=None, description="Dask scheduler address for runner=dask; unset: a local cluster."
    )
    dask_workers: int = Field(default=2, ge=1, description="Worker processes of that local Dask cluster.")
    prefect_rate_limit: str | None = Field(
        default=None,
        description="Name of a Prefect global concurrency limit (with slot decay) every model call occupies "
        "one slot of: one request rate across all workers.",
    )

    batch_mode: Literal["off", "provider"] = Field(
        default="off",
        description="`provider`: a scheduled or manual run sends its users' extraction prompts as one provider "
        "batch per shard (litellm's files and batches API, about half the price) and a later run applies "
        "the answers; `off`: every call is made directly. Backfills, replays and eval always call directly.",
    )
    batch_wait_s: float = Field(
        default=0.0,
        ge=0,
        description="How long a run waits for the batches it submitted before leaving them to the next run "
        "(0: it does not wait).",
    )
    batch_poll_s: float = Field(
        default=30.0, gt=0, description="Seconds between two looks at a batch a run waits for."
    )
    batch_warn_age_s: float = Field(
        default=26 * 3600.0,
        gt=0,
        description="A batch still out after this long is a warning in the run's report (providers answer "
        "within 24 hours or expire the batch).",
    )
    batch_followups: Literal["direct", "batch"] = Field(
        default="direct",
        description="The summary calls of a batch-mode run: `direct` (made by the run that applies the "
        "answers) or `batch` (sent in a batch of their own, applied by a later run). Reconciliation past the "
        "core cap is always a direct call: the user's write waits on it.",
    )
    batch_discount: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="The share of the direct price a batch answer costs where litellm's price map has no "
        "batch price for the model.",
    )

    @field_validator("extra_headers", mode="before")
    @classmethod
    def _parse_headers(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else None
            except json.JSONDecodeError as exc:
                raise ValueError(f"not JSON ({exc.msg} at character {exc.pos})") from None
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ValueError(f"must be a JSON object of header names to values, got a {type(value).__name__}")
        for name, header in value.items():
            if not _HEADER_NAME.match(name):
                raise ValueError(f"{name!r} is not an HTTP header name")
            if not isinstance(header, str) or any(c in header for c in "\r\n\0"):
                raise ValueError(f"the value of {name} must be a string on one line")
        return value

    @field_validator("kinds", "exclusive_kinds", mode="before")
    @classmethod
    def _split_kinds(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(k.strip() for k in value.split(",") if k.strip())
        return value

    @field_validator("kinds")
    @classmethod
    def _check_kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("AGENT_SIGNALS_KINDS must name at least one kind")
        bad = [k for k in value if not k.isidentifier() or not k.islower()]
        if bad:
            raise ValueError(f"kinds must be lower-case identifiers, got {bad}")
        return value

    @field_validator("signal_language")
    @classmethod
    def _check_signal_language(cls, value: str) -> str:
        if value not in (*SIGNAL_LANGUAGES, ANY_LANGUAGE):
            raise ValueError(f"{value!r} is not one of {' '.join(SIGNAL_LANGUAGES)} or {ANY_LANGUAGE}")
        return value

    @property
    def signal_language_name(self) -> str:
        """The signal language's English name, as the prompts say it (CLDR, through babel)."""
        from babel import Locale

        if self.signal_language == ANY_LANGUAGE:
            return "the language the user writes in"
        return Locale.parse(self.signal_language).get_display_name("en") or self.signal_language

    @property
    def prompts_dir(self) -> Path:
        return self.project_dir / "prompts"


def load_settings(keys: bool = True) -> Settings:
    """Settings from the environment, every value checked (check_settings); a bad value is one SettingsError
    naming its variable. `keys`: whether the models' API keys are checked too (for a command that reaches a
    model; `db migrate` or `context` need none)."""
    try:
        settings = Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        field_ = Settings.model_fields.get(name)
        alias = field_.validation_alias if field_ and isinstance(field_.validation_alias, str) else None
        variable = alias or f"AGENT_SIGNALS_{name.upper()}"
        message = first["msg"].removeprefix("Value error, ")
        more = len(exc.errors()) - 1
        hint = f"fix or unset {variable}" + (f"; {more} other value(s) are invalid too" if more else "")
        raise SettingsError(f"{variable}: {message}", hint) from None
    check_settings(settings, keys=keys)
    return settings


def check_settings(settings: Settings, keys: bool = True) -> None:
    """What a value's type cannot say (setting_checks.py): the schedule as Prefect reads it, the prompt
    version's files, each model's provider and API key. Cheap: no Prefect, no litellm."""
    if settings.schedule_cron:
        setting_checks.cron("AGENT_SIGNALS_SCHEDULE_CRON", settings.schedule_cron)
    if settings.schedule_timezone:
        setting_checks.timezone("AGENT_SIGNALS_SCHEDULE_TIMEZONE", settings.schedule_timezone)
    setting_checks.prompt_version(
        "AGENT_SIGNALS_PROMPT_VERSION", settings.prompts_dir, settings.prompt_version
    )
    for variable, model in (
        ("AGENT_SIGNALS_MODEL", settings.model),
        ("AGENT_SIGNALS_EMBEDDING_MODEL", settings.embedding_model),
    ):
        setting_checks.model(variable, model, settings.api_key if keys else None, need_key=keys)
