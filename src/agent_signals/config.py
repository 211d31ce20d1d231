"""Settings, built once at run time from the environment (prefix ``AGENT_SIGNALS_``) and passed down.

Nothing in the package reads the environment anywhere else. The settings are seven groups (model, database,
run, batch, screening, schedule, mcp) read as `settings.model.name`; the variables and the keywords of
`Settings(...)` keep their flat names, routed to their group by FIELDS. The secrets (database.url,
model.api_key, model.extra_headers, mcp.database_url, mcp.token) are left out of every serialised form (model_dump, JSON, repr): a flow's
settings parameter is stored among its flow run's parameters in Prefect's API without them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

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


class _Group(BaseModel):
    """A group of settings: frozen as Settings is, and no field it does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelSettings(_Group):
    """The chat and embedding models: which, where, how they are asked, and how fast."""

    name: str = Field(default=OFFLINE_MODEL, description="litellm model string used for extraction.")
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
    extra_headers: dict[str, str] | None = Field(
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
    requests_per_minute: int | None = Field(default=None, ge=1, description="Model calls per minute at most.")
    tokens_per_minute: int | None = Field(default=None, ge=1, description="Prompt tokens per minute at most.")
    prefect_rate_limit: str | None = Field(
        default=None,
        description="Name of a Prefect global concurrency limit (with slot decay) every model call occupies "
        "one slot of: one request rate across all workers.",
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


class DatabaseSettings(_Group):
    """Where the data and the project's files are: the database, the embedded server's folder, prompts/ and dbt/."""

    url: str | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="PostgreSQL URL. Unset: an embedded PostgreSQL (pgserver) under data_dir.",
    )
    data_dir: Path = Field(
        default=PROJECT_DIR / ".agent-signals",
        description="Folder of the embedded PostgreSQL's data (git-ignored).",
    )
    name: str = Field(default="agent_signals", description="Database used on the embedded server.")
    project_dir: Path = Field(
        default=PROJECT_DIR, description="Folder holding prompts/ and dbt/ (the SQL is package data)."
    )


class RunSettings(_Group):
    """What a run extracts and keeps, how much it may spend, and how its users are spread over shards and workers."""

    concurrency: int = Field(
        default=8,
        ge=1,
        le=256,
        description="Model calls in flight at once (twice as many users are in progress).",
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
    kinds: tuple[str, ...] = Field(default=DEFAULT_KINDS, description="The closed set of signal kinds.")
    exclusive_kinds: tuple[str, ...] = Field(
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
    max_run_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Budget of one run in tokens (prompt, completion, embedding); unset: none.",
    )
    max_run_cost_usd: float | None = Field(
        default=None, gt=0, description="Budget of one run in USD (litellm's cost tracking); unset: none."
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
    workers: int | None = Field(
        default=None,
        ge=0,
        le=256,
        description="Worker processes a run does its CPU work in (rendering, token counting, parsing, "
        "validation, screening), so that its event loop only waits for the model; unset: the machine's "
        "cores; 0: in the event loop's own process.",
    )

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


class BatchSettings(_Group):
    """The provider's batch API: whether a run uses it, how long it waits, and how its answers are priced."""

    mode: Literal["off", "provider"] = Field(
        default="off",
        description="`provider`: a scheduled or manual run sends its users' extraction prompts as one provider "
        "batch per shard (litellm's files and batches API, about half the price) and a later run applies "
        "the answers; `off`: every call is made directly. Backfills, replays and eval always call directly.",
    )
    wait_s: float = Field(
        default=0.0,
        ge=0,
        description="How long a run waits for the batches it submitted before leaving them to the next run "
        "(0: it does not wait).",
    )
    poll_s: float = Field(
        default=30.0, gt=0, description="Seconds between two looks at a batch a run waits for."
    )
    warn_age_s: float = Field(
        default=26 * 3600.0,
        gt=0,
        description="A batch still out after this long is a warning in the run's report (providers answer "
        "within 24 hours or expire the batch).",
    )
    followups: Literal["direct", "batch"] = Field(
        default="direct",
        description="The summary calls of a batch-mode run: `direct` (made by the run that applies the "
        "answers) or `batch` (sent in a batch of their own, applied by a later run). Reconciliation past the "
        "core cap is always a direct call: the user's write waits on it.",
    )
    discount: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="The share of the direct price a batch answer costs where litellm's price map has no "
        "batch price for the model.",
    )


class ScreeningSettings(_Group):
    """What screening lets through to where agents read: the language, special categories, held candidates, restatements."""

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
    near_duplicate_similarity: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="Cosine similarity above which a new signal is a re-statement of an existing one.",
    )

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


class ScheduleSettings(_Group):
    """The schedule `serve` gives the scheduled deployment."""

    cron: str | None = Field(
        default=None,
        description="Cron of the scheduled deployment for `serve` (unset: deploy/prefect.yaml's).",
    )
    timezone: str | None = Field(
        default=None, description="Timezone of that cron (unset: deploy/prefect.yaml's)."
    )


class McpSettings(_Group):
    """`agent-signals mcp`: the database role it connects as, and who may call it over HTTP (docs/agents.md)."""

    database_url: str | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="PostgreSQL URL the MCP server connects with, as a login role that is a member of "
        "agent_signals_mcp (the server then `set role`s to it). Unset: DATABASE_URL's (or the embedded "
        "server's) login, which must be able to `set role agent_signals_mcp` too.",
    )
    token: SecretStr | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description="Bearer token every HTTP request (`agent-signals mcp --http`) must carry; it reaches every "
        "user and agent. `--http` refuses to start without it or a tokens file.",
    )
    tokens_file: Path | None = Field(
        default=None,
        description="TOML file of bearer tokens, each limited to some users and/or agents (docs/agents.md, "
        "\"Tokens\"); read at the server's start, with AGENT_SIGNALS_MCP_TOKEN's token if both are set.",
    )


# Each setting by its flat name (its variable without the prefix, lower case: the keyword `Settings(...)` and
# `Settings.replace(...)` take), with the group and the field that hold it. The one table of the names.
FIELDS: dict[str, tuple[str, str]] = {
    "model": ("model", "name"),
    "api_base": ("model", "api_base"),
    "api_key": ("model", "api_key"),
    "extra_headers": ("model", "extra_headers"),
    "retry_after_max_s": ("model", "retry_after_max_s"),
    "prompt_version": ("model", "prompt_version"),
    "max_retries": ("model", "max_retries"),
    "retry_backoff_s": ("model", "retry_backoff_s"),
    "timeout_s": ("model", "timeout_s"),
    "max_prompt_tokens": ("model", "max_prompt_tokens"),
    "max_answer_tokens": ("model", "max_answer_tokens"),
    "structured_answers": ("model", "structured_answers"),
    "offline_latency_ms": ("model", "offline_latency_ms"),
    "embedding_model": ("model", "embedding_model"),
    "embedding_dim": ("model", "embedding_dim"),
    "requests_per_minute": ("model", "requests_per_minute"),
    "tokens_per_minute": ("model", "tokens_per_minute"),
    "prefect_rate_limit": ("model", "prefect_rate_limit"),
    "database_url": ("database", "url"),
    "data_dir": ("database", "data_dir"),
    "database_name": ("database", "name"),
    "project_dir": ("database", "project_dir"),
    "concurrency": ("run", "concurrency"),
    "failing_user_attempts": ("run", "failing_user_attempts"),
    "failing_user_backoff_s": ("run", "failing_user_backoff_s"),
    "failing_user_backoff_max_s": ("run", "failing_user_backoff_max_s"),
    "kinds": ("run", "kinds"),
    "exclusive_kinds": ("run", "exclusive_kinds"),
    "decay_base_days": ("run", "decay_base_days"),
    "decay_mention_boost": ("run", "decay_mention_boost"),
    "archive_below": ("run", "archive_below"),
    "summaries": ("run", "summaries"),
    "max_run_tokens": ("run", "max_run_tokens"),
    "max_run_cost_usd": ("run", "max_run_cost_usd"),
    "shards": ("run", "shards"),
    "shard_size": ("run", "shard_size"),
    "shards_in_flight": ("run", "shards_in_flight"),
    "runner": ("run", "runner"),
    "shard_deployment": ("run", "shard_deployment"),
    "shard_run_timeout_s": ("run", "shard_run_timeout_s"),
    "dask_address": ("run", "dask_address"),
    "dask_workers": ("run", "dask_workers"),
    "workers": ("run", "workers"),
    "batch_mode": ("batch", "mode"),
    "batch_wait_s": ("batch", "wait_s"),
    "batch_poll_s": ("batch", "poll_s"),
    "batch_warn_age_s": ("batch", "warn_age_s"),
    "batch_followups": ("batch", "followups"),
    "batch_discount": ("batch", "discount"),
    "signal_language": ("screening", "signal_language"),
    "special_categories": ("screening", "special_categories"),
    "review": ("screening", "review"),
    "near_duplicate_similarity": ("screening", "near_duplicate_similarity"),
    "schedule_cron": ("schedule", "cron"),
    "schedule_timezone": ("schedule", "timezone"),
    "mcp_database_url": ("mcp", "database_url"),
    "mcp_token": ("mcp", "token"),
    "mcp_tokens_file": ("mcp", "tokens_file"),
}
GROUPS = ("model", "database", "run", "batch", "screening", "schedule", "mcp")
# a variable other than AGENT_SIGNALS_<NAME>
_OWN_VARIABLES = {"database_url": "DATABASE_URL"}
_FLAT_OF = {where: flat for flat, where in FIELDS.items()}


def variable(flat: str) -> str:
    """The environment variable that sets the setting of this flat name."""
    return _OWN_VARIABLES.get(flat) or f"AGENT_SIGNALS_{flat.upper()}"


def variable_of(group: str, field: str) -> str:
    """The environment variable that sets `settings.<group>.<field>`."""
    return variable(_FLAT_OF[(group, field)])


def _grouped(values: dict[str, Any]) -> dict[str, Any]:
    """Flat names into their group: `model="openai/x"` (a string) is model.name, `model={...}` or a
    ModelSettings the group itself; a flat name wins over the same field in a group given whole. Other
    names are left as they are (Settings ignores them)."""
    grouped: dict[str, Any] = {}
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if key in GROUPS and isinstance(value, dict | BaseModel):
            grouped.setdefault(key, {}).update(dict(value) if isinstance(value, BaseModel) else value)
        elif key in FIELDS:
            flat[key] = value
        else:
            grouped.setdefault(key, value)
    for name, value in flat.items():
        group, field = FIELDS[name]
        grouped.setdefault(group, {})[field] = value
    return grouped


class _FlatEnvironment(PydanticBaseSettingsSource):
    """The variables of FIELDS, read under their flat names (not pydantic-settings' AGENT_SIGNALS_MODEL__NAME),
    as they are (each field's validation parses them), names matched regardless of case, in their groups."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        environ = {name.lower(): value for name, value in os.environ.items()}
        return _grouped(
            {flat: environ[variable(flat).lower()] for flat in FIELDS if variable(flat).lower() in environ}
        )


class _GroupedKeywords(PydanticBaseSettingsSource):
    """The keywords of Settings(...) (pydantic-settings' init source), in their groups: merged with the
    environment's field by field, a keyword wins over its variable, as the flat settings' keywords did."""

    def __init__(self, settings_cls: type[BaseSettings], keywords: PydanticBaseSettingsSource):
        super().__init__(settings_cls)
        self._keywords = keywords

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _grouped(self._keywords())


class Settings(BaseSettings):
    """Every setting, in groups. Built from the flat names (the environment's, or the same names as keywords:
    `Settings(model="openai/gpt-4o-mini", batch_mode="provider")`), which FIELDS routes to their group; read
    as `settings.model.name`, `settings.batch.mode`. model_validate reads the environment too (pydantic calls
    BaseSettings' __init__), the values given winning field by field."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    model: ModelSettings = ModelSettings()
    database: DatabaseSettings = DatabaseSettings()
    run: RunSettings = RunSettings()
    batch: BatchSettings = BatchSettings()
    screening: ScreeningSettings = ScreeningSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    mcp: McpSettings = McpSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return _GroupedKeywords(settings_cls, init_settings), _FlatEnvironment(settings_cls)

    @model_validator(mode="before")
    @classmethod
    def _route_flat_names(cls, data: Any) -> Any:
        """Flat names into their group, for a dict validated without the sources."""
        return _grouped(data) if isinstance(data, dict) else data

    def replace(self, **changes: Any) -> Settings:
        """A copy with some settings changed, by their flat names, validated as the environment's values are
        (model_copy(update=) would validate nothing and take the flat names as top-level fields)."""
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise TypeError(f"not settings: {', '.join(unknown)}")
        values: dict[str, Any] = {group: dict(getattr(self, group)) for group in GROUPS}
        for flat, value in changes.items():
            group, field = FIELDS[flat]
            values[group][field] = value
        return type(self).model_validate(values)

    @property
    def prompts_dir(self) -> Path:
        return self.database.project_dir / "prompts"


def load_settings(keys: bool = True) -> Settings:
    """Settings from the environment, every value checked (check_settings); a bad value is one SettingsError
    naming its variable. `keys`: whether the models' API keys are checked too (for a command that reaches a
    model; `db migrate` or `context` need none)."""
    try:
        settings = Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = tuple(str(part) for part in first["loc"][:2])
        name = variable(_FLAT_OF[where]) if where in _FLAT_OF else "AGENT_SIGNALS_" + "_".join(where).upper()
        message = first["msg"].removeprefix("Value error, ")
        more = len(exc.errors()) - 1
        hint = f"fix or unset {name}" + (f"; {more} other value(s) are invalid too" if more else "")
        raise SettingsError(f"{name}: {message}", hint) from None
    check_settings(settings, keys=keys)
    return settings


def check_settings(settings: Settings, keys: bool = True) -> None:
    """What a value's type cannot say (setting_checks.py): the schedule as Prefect reads it, the prompt
    version's files, each model's provider and API key. Cheap: no Prefect, no litellm."""
    if settings.schedule.cron:
        setting_checks.cron(variable_of("schedule", "cron"), settings.schedule.cron)
    if settings.schedule.timezone:
        setting_checks.timezone(variable_of("schedule", "timezone"), settings.schedule.timezone)
    setting_checks.prompt_version(
        variable_of("model", "prompt_version"), settings.prompts_dir, settings.model.prompt_version
    )
    for name, model in (
        (variable_of("model", "name"), settings.model.name),
        (variable_of("model", "embedding_model"), settings.model.embedding_model),
    ):
        setting_checks.model(name, model, settings.model.api_key if keys else None, need_key=keys)
