"""The runs ledger (ops.runs, with the figures shard flow runs leave in ops.run_shards and a backfill's
finished slices), the users' run locks, and per-user failures (ops.failures), with the backoff of a failing
user and the set-aside of the messages their failed attempts kept reading (ops.set_aside; rules in
retries.py)."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from agent_signals.config import Settings
from agent_signals.core import retries
from agent_signals.store.ledger import run_calls
from agent_signals.store.sqlfiles import query

RUN_KINDS = ("scheduled", "backfill", "manual")


SLOWEST_KEPT = 5
# the figures of a run's calls: ops.runs takes them from ops.run_calls (update_run.sql), not from RunStats
CALL_FIGURES = ("llm_calls", "llm_calls_by_purpose", "prompt_tokens", "cached_prompt_tokens", "completion_tokens",
                "cost_usd", "embedding_calls", "embedding_tokens")  # fmt: skip


def _redact(text: str) -> str:
    """core/screening/screen.py's redact, imported when there is text to redact: its tables cost about a second of
    imports, which a run with nothing to do (stages/run/idle.py) never needs."""
    from agent_signals.core.screening.screen import redact

    return redact(text)


@dataclass
class RunStats:
    """Figures of one run, kept in memory and written to ops.runs after each shard and at the end."""

    users: int = 0  # distinct users attempted: a user in several shards or slices of the run counts once
    conversations: int = 0
    messages: int = 0
    actions: Counter[str] = field(default_factory=Counter)
    llm_calls: int = 0
    llm_calls_by_purpose: Counter[str] = field(default_factory=Counter)  # extract, reconcile, summarize
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0  # of prompt_tokens, read from the provider's prompt cache
    completion_tokens: int = 0
    cost_usd: float = 0.0  # chat and embedding calls together
    embedding_calls: int = 0
    embedding_tokens: int = 0
    failures: int = 0
    warnings: list[str] = field(default_factory=list)
    failure_reasons: Counter[str] = field(default_factory=Counter)  # "stage/kind" -> users
    skipped_users: Counter[str] = field(default_factory=Counter)  # "busy" (another run), "budget"
    slowest: list[tuple[float, str]] = field(default_factory=list)  # (seconds, user), the 5 slowest
    refresh_s: float | None = None
    stage_seconds: Counter[str] = field(default_factory=Counter)  # wall time by stage (scan, process, ...)
    # calls, tokens and cost of chat calls by mode: "direct.calls", "batch.cost_usd", ... (batch at its price)
    by_mode: Counter[str] = field(default_factory=Counter)
    batches: Counter[str] = field(default_factory=Counter)  # sent, requests_sent, answers, unanswered, ...
    model_error: tuple[str, str, str] | None = None  # (kind, message, hint) of a misconfigured model
    database_lost: str | None = None  # why a part of the run lost its database connection (it stopped)
    user_ids: set[str] = field(default_factory=set)  # the users counted in `users`
    # calls counted here and not yet added to ops.run_calls ("purpose.mode.figure"): see store/ledger/run_calls.py
    unrecorded: Counter[str] = field(default_factory=Counter)

    def note_user(self, user_id: str) -> None:
        """Count a user the run attempts, once however many of its shards and slices hold them."""
        if user_id not in self.user_ids:
            self.user_ids.add(user_id)
            self.users += 1

    def merge(self, other: RunStats) -> None:
        """Add the figures of a part of the run (a shard processed elsewhere)."""
        unnamed = other.users - len(other.user_ids)  # users a part counted without their ids
        for user_id in other.user_ids:
            self.note_user(user_id)
        self.users += unnamed
        for name in self.COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in self.TALLIES:
            getattr(self, name).update(getattr(other, name))
        self.warnings.extend(other.warnings)
        self.model_error = self.model_error or other.model_error
        self.database_lost = self.database_lost or other.database_lost
        for seconds, user_id in other.slowest:
            self.note_duration(user_id, seconds)

    # the figures a merge adds up (users: see merge, which counts each user once)
    COUNTS = ("conversations", "messages", "llm_calls", "prompt_tokens", "cached_prompt_tokens",
              "completion_tokens", "cost_usd", "embedding_calls", "embedding_tokens", "failures")  # fmt: skip
    TALLIES = ("actions", "llm_calls_by_purpose", "failure_reasons", "skipped_users", "stage_seconds", "by_mode",
               "batches", "unrecorded")  # fmt: skip

    def aggregates(self) -> dict:
        """The figures as JSON, with the ids of the users counted (so that a run adding up its shards counts
        each user once); the slowest users and warnings stay in the process."""
        return {
            "users": self.users,
            "user_ids": sorted(self.user_ids),
            **{name: getattr(self, name) for name in self.COUNTS},
            **{name: dict(getattr(self, name)) for name in self.TALLIES},
            "model_error": self.model_error,
            "database_lost": self.database_lost,
        }

    @classmethod
    def from_aggregates(cls, data: dict) -> RunStats:
        stats = cls(**{name: data.get(name, 0) for name in ("users", *cls.COUNTS)})
        stats.user_ids = set(data.get("user_ids") or ())
        for name in cls.TALLIES:
            getattr(stats, name).update(data.get(name) or {})
        stats.model_error = tuple(data["model_error"]) if data.get("model_error") else None
        stats.database_lost = data.get("database_lost")
        return stats

    def summary(
        self, run_id: UUID, kind: str, status: str, dry_run: bool = False, answer_mode: str | None = None
    ) -> dict:
        """What the CLI prints and the flow returns."""
        return {
            "run_id": str(run_id),
            "kind": kind,
            "status": status,
            "dry_run": dry_run,
            "answer_mode": answer_mode,  # how the model was asked for JSON (structured.py)
            "users": self.users,
            "conversations": self.conversations,
            "messages": self.messages,
            "actions": dict(sorted(self.actions.items())),
            "llm_calls": self.llm_calls,
            "llm_calls_by_purpose": dict(sorted(self.llm_calls_by_purpose.items())),
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "embedding_calls": self.embedding_calls,
            "by_mode": self.modes(),
            "batches": dict(sorted(self.batches.items())),
            "failures": self.failures,
            "skipped_users": dict(sorted(self.skipped_users.items())),
            "slowest_users": [
                [user, round(seconds, 3)] for seconds, user in sorted(self.slowest, reverse=True)
            ],
            "stage_seconds": {name: round(seconds, 3) for name, seconds in self.stage_seconds.items()},
        }

    def count_call(
        self,
        purpose: str,
        mode: str,
        prompt_tokens: int,
        cached: int,
        completion_tokens: int,
        cost_usd: float,
    ) -> None:
        """One chat call answered (`mode`: direct, or batch for an answer read from a provider batch)."""
        self.llm_calls += 1
        self.llm_calls_by_purpose[purpose] += 1
        self.prompt_tokens += prompt_tokens
        self.cached_prompt_tokens += cached
        self.completion_tokens += completion_tokens
        self.cost_usd += cost_usd
        for name, value in (("calls", 1), ("prompt_tokens", prompt_tokens),
                            ("completion_tokens", completion_tokens), ("cost_usd", cost_usd)):  # fmt: skip
            self.by_mode[f"{mode}.{name}"] += value
        self._unrecorded(purpose, mode, 1, prompt_tokens, cached, completion_tokens, cost_usd)

    def count_embedding(self, calls: int, tokens: int, cost_usd: float) -> None:
        """Embedding calls answered (their cost is in the run's cost with the chat calls')."""
        self.embedding_calls += calls
        self.embedding_tokens += tokens
        self.cost_usd += cost_usd
        self._unrecorded("embed", "direct", calls, tokens, 0, 0, cost_usd)

    def _unrecorded(self, purpose: str, mode: str, *figures: float) -> None:
        for figure, value in zip(run_calls.FIGURES, figures, strict=True):
            if value:
                self.unrecorded[run_calls.key(purpose, mode, figure)] += value

    def modes(self) -> dict[str, dict[str, float]]:
        """by_mode as {"direct": {"calls", "prompt_tokens", "completion_tokens", "cost_usd"}, "batch": ...}."""
        nested: dict[str, dict[str, float]] = {}
        for key, value in sorted(self.by_mode.items()):
            mode, _, name = key.partition(".")
            nested.setdefault(mode, {})[name] = round(value, 6) if name == "cost_usd" else value
        return nested

    def note_duration(self, user_id: str, seconds: float) -> None:
        if len(self.slowest) < SLOWEST_KEPT:
            heapq.heappush(self.slowest, (seconds, user_id))
        else:
            heapq.heappushpop(self.slowest, (seconds, user_id))

    def as_params(self) -> dict:
        internal = ("failure_reasons", "skipped_users", "slowest", "stage_seconds", "user_ids", "model_error",
                    "by_mode", "batches", "database_lost", "unrecorded", *CALL_FIGURES)  # fmt: skip
        params = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in internal}
        params["actions"] = Jsonb(dict(sorted(self.actions.items())))
        params["batches"] = Jsonb(dict(sorted(self.batches.items())))
        params["warnings"] = Jsonb([_redact(w) for w in self.warnings[-100:]])
        return params


async def lock_users(conn: psycopg.AsyncConnection, user_ids: list[str]) -> list[str]:
    """Take the run-level lock of each user that no other run holds (session locks on the run's own
    connection: released when it ends, or by PostgreSQL if the process dies). Returns the users locked."""
    cur = await conn.execute(query("runs/try_lock_users"), {"user_ids": user_ids})
    return [row[0] for row in await cur.fetchall()]


async def unlock_users(conn: psycopg.AsyncConnection, user_ids: list[str]) -> None:
    if user_ids:
        await conn.execute(query("runs/unlock_users"), {"user_ids": user_ids})


async def free_connections(conn: psycopg.AsyncConnection) -> int:
    """How many more connections the server can give a client that is not a superuser."""
    row = await (await conn.execute(query("runs/free_connections"))).fetchone()
    return int(row[0])


async def abandon_dead_runs(conn: psycopg.AsyncConnection) -> list[UUID]:
    async with conn.transaction():
        cur = await conn.execute(query("runs/abandon_dead_runs"))
        return [row[0] for row in await cur.fetchall()]


async def start_run(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    *,
    run_id: UUID,
    kind: str,
    window_start: datetime | None,
    window_end: datetime,
    prompt_version: str,
    flow_run_id: UUID | None,
    answer_mode: str | None,
    parameters: dict | None = None,
) -> None:
    """Record the run and hold its session lock (conn must stay open, autocommit, for the run's life).
    `answer_mode`: how the model is asked for JSON (adapters/structured.py's answer_mode; None for a run that
    asks no model, stages/run/idle.py's)."""
    if kind not in RUN_KINDS:
        raise ValueError(f"run kind must be one of {RUN_KINDS}, got {kind!r}")
    await conn.execute(query("runs/hold_run_lock"), {"run_id": run_id})
    await conn.execute(
        query("runs/start_run"),
        {
            "run_id": run_id,
            "kind": kind,
            "flow_run_id": flow_run_id,
            "window_start": window_start,
            "window_end": window_end,
            "model": settings.model.name,
            "prompt_version": prompt_version,
            "answer_mode": answer_mode,
            "parameters": Jsonb(parameters) if parameters is not None else None,
        },
    )


async def update_run(
    conn: psycopg.AsyncConnection,
    run_id: UUID,
    stats: RunStats,
    status: str = "running",
    error: str | None = None,
) -> None:
    """Write the run's row: first the calls counted and not yet recorded (run_calls.record), from which the
    row's call figures are read."""
    await run_calls.record(conn, run_id, stats.unrecorded)
    await conn.execute(
        query("runs/update_run"),
        {**stats.as_params(), "run_id": run_id, "status": status, "error": _redact(error) if error else None},
    )


async def end_sessions(conn: psycopg.AsyncConnection, application_name: str) -> None:
    """End the database sessions of an interrupted run (their transactions roll back: those users stay
    pending)."""
    await conn.execute(query("runs/end_run_sessions"), {"application_name": application_name})


@dataclass(frozen=True)
class Committed:
    """What a run committed, read from what it left behind (committed_by_run.sql)."""

    users: int  # with an event or a moved watermark
    conversations: int
    actions: dict[str, int]
    failures: int  # rows of ops.failures
    slices: int  # backfill slices finished


async def committed_by_run(conn: psycopg.AsyncConnection, run_id: UUID) -> Committed:
    """What a run committed, read from the events, watermarks, failures and slices it wrote."""
    cur = await conn.execute(query("runs/committed_by_run"), {"run_id": run_id})
    return Committed(*await cur.fetchone())


async def record_shard_run(
    conn: psycopg.AsyncConnection, *, run_id: UUID, batch: UUID, shard: int, part: int,
    flow_run_id: UUID | None, stats: RunStats,
) -> None:  # fmt: skip
    """The figures of a shard processed as its own flow run (ops.run_shards), for the run that handed it out."""
    await conn.execute(
        query("runs/record_shard_run"),
        {"run_id": run_id, "batch": batch, "shard": shard, "part": part, "flow_run_id": flow_run_id,
         "stats": Jsonb(stats.aggregates())},
    )  # fmt: skip


async def shard_run_stats(conn: psycopg.AsyncConnection, run_id: UUID, batch: UUID) -> list[RunStats]:
    """The figures one hand-out of shard flow runs left (see record_shard_run)."""
    cur = await conn.execute(query("runs/shard_run_stats"), {"run_id": run_id, "batch": batch})
    return [RunStats.from_aggregates(stats) for _shard, _part, stats in await cur.fetchall()]


async def finished_slices(conn: psycopg.AsyncConnection, backfill_key: str) -> set[datetime]:
    """The slices of a backfill (by its key) that a run finished cleanly: not redone."""
    cur = await conn.execute(query("runs/finished_slices"), {"backfill_key": backfill_key})
    return {row[0] for row in await cur.fetchall()}


async def record_slice(
    conn: psycopg.AsyncConnection, *, backfill_key: str, start: datetime, end: datetime,
    run_id: UUID, users: int, messages: int,
) -> None:  # fmt: skip
    await conn.execute(
        query("runs/record_slice"),
        {"backfill_key": backfill_key, "slice_start": start, "slice_end": end, "run_id": run_id,
         "users": users, "messages": messages},
    )  # fmt: skip


@dataclass(frozen=True)
class RecordedFailure:
    attempt: int  # the user's failed attempts in a row, this one included (0: it does not count against them)
    set_aside: int  # messages set aside now (after the last attempt allowed)


async def record_failure(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    *,
    run_id: UUID,
    user_id: str,
    stage: str,
    error_kind: str,
    message: str,
    raw_answer: str | None = None,
    read: Sequence[retries.Read] = (),
    counted: bool = False,
) -> RecordedFailure:
    """Record a failure, redacted, with the messages the failing call read. One that counts against the user
    delays their next attempt (retries.retry_delay_s); the last attempt allowed sets aside the messages the
    failed attempts kept reading and resolves them, so that the user's other messages are read again."""
    from agent_signals.core.screening.redaction import redact_answer

    message = _redact(message)[:2000]
    async with conn.transaction():
        earlier: list[list[retries.Read]] = []
        if counted:
            cur = await conn.execute(query("runs/counted_failures"), {"user_id": user_id})
            earlier = [
                [(m["conversation_id"], m["message_id"]) for m in row[0]] for row in await cur.fetchall()
            ]
        attempt = len(earlier) + 1 if counted else 0
        give_up = counted and retries.gives_up(settings, attempt)
        await conn.execute(
            query("runs/record_failure"),
            {
                "run_id": run_id,
                "user_id": user_id,
                "stage": stage,
                "error_kind": error_kind,
                "message": message,
                "raw_answer": redact_answer(raw_answer),
                "counted": counted,
                "messages": Jsonb([{"conversation_id": c, "message_id": m} for c, m in read]),
                "retry_after_s": retries.retry_delay_s(settings, attempt)
                if counted and not give_up
                else None,
            },
        )
        if not give_up:
            return RecordedFailure(attempt, 0)
        aside = retries.offending([*earlier, list(read)])
        cur = await conn.execute(
            query("runs/set_aside_messages"),
            {
                "user_id": user_id,
                "conversation_ids": [c for c, _m in aside],
                "message_ids": [m for _c, m in aside],
                "attempts": attempt,
                "reason": f"{stage}/{error_kind}: {message}"[:2000],
                "run_id": run_id,
            },
        )
        await conn.execute(query("shared/resolve_failures"), {"user_ids": [user_id], "run_id": run_id})
        return RecordedFailure(attempt, cur.rowcount)
