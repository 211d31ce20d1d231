"""The batch ledger (ops.batches, ops.batch_requests; m017): the provider batches a run sent, each request's
user, call and the ids of what its prompt showed, and the reads that bring those messages and signals back
when the answer is applied. A user with a waiting request is in a batch and is never sent again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.prompting.extract_calls import KnownSignal, SourceMessage
from agent_signals.core.screening.screen import redact
from agent_signals.store.sqlfiles import query

OUT = ("preparing", "submitted")  # statuses of a batch the provider has not finished (or may not have)


@dataclass(frozen=True)
class Shown:
    """A message a request's prompt showed under `handle`; `kept`: the characters shown of a cut one."""

    handle: str
    conversation_id: str
    message_id: str
    kept: int | None = None


@dataclass(frozen=True)
class NewRequest:
    """One call of one user, to be sent in a batch."""

    custom_id: str
    user_id: str
    call_index: int
    calls: int
    messages: Sequence[Shown]
    signals: Sequence[tuple[str, UUID]]  # (handle, signal_id)
    max_tokens: int
    fingerprint: str | None = None  # a summary's: the signal set it describes


@dataclass(frozen=True)
class Waiting:
    """A user's waiting request, with what the ledger knows of its batch."""

    user_id: str
    batch_key: UUID
    custom_id: str
    call_index: int
    calls: int
    messages: tuple[Shown, ...]
    signals: tuple[tuple[str, UUID], ...]
    max_tokens: int
    batch_status: str
    provider_batch_id: str | None
    provider_status: str | None
    output_file_id: str | None
    error_file_id: str | None
    fingerprint: str | None
    model: str
    prompt_version: str

    @property
    def out(self) -> bool:
        return self.batch_status in OUT


@dataclass(frozen=True)
class OpenBatch:
    batch_key: UUID
    provider_batch_id: str | None
    run_id: UUID
    purpose: str
    model: str
    prompt_version: str
    status: str
    provider_status: str | None
    requests: int
    created_at: datetime
    submitted_at: datetime | None
    run_running: bool
    users_waiting: int


async def record_batch(
    conn: psycopg.AsyncConnection, *, batch_key: UUID, run_id: UUID, model: str,
    prompt_version: str, answer_mode: str | None, requests: Sequence[NewRequest], purpose: str = "extract",
) -> None:  # fmt: skip
    """Record a batch `preparing` with its requests, in one transaction, before anything is uploaded. Raises
    psycopg.errors.UniqueViolation when one of its users is already waiting in another batch."""
    async with conn.transaction():
        await conn.execute(
            query("batch_ledger/record_batch"),
            {"batch_key": batch_key, "run_id": run_id, "purpose": purpose, "model": model,
             "prompt_version": prompt_version, "answer_mode": answer_mode, "requests": len(requests)},
        )  # fmt: skip
        async with conn.cursor() as cur:
            await cur.executemany(
                query("batch_ledger/record_batch_request"),
                [
                    {"batch_key": batch_key, "custom_id": r.custom_id, "user_id": r.user_id, "purpose": purpose,
                     "fingerprint": r.fingerprint,
                     "call_index": r.call_index, "calls": r.calls, "max_tokens": r.max_tokens,
                     "messages": Jsonb([{"handle": m.handle, "conversation_id": m.conversation_id,
                                         "message_id": m.message_id, "kept": m.kept} for m in r.messages]),
                     "signals": Jsonb([{"handle": h, "signal_id": str(s)} for h, s in r.signals])}
                    for r in requests
                ],
            )  # fmt: skip


async def submitted(
    conn: psycopg.AsyncConnection, batch_key: UUID, provider_batch_id: str, status: str
) -> None:
    await conn.execute(
        query("batch_ledger/batch_submitted"),
        {"batch_key": batch_key, "provider_batch_id": provider_batch_id, "provider_status": status},
    )


async def seen(conn: psycopg.AsyncConnection, batch_key: UUID, status: str) -> None:
    await conn.execute(query("shared/batch_seen"), {"batch_key": batch_key, "provider_status": status})


async def ended(
    conn: psycopg.AsyncConnection, batch_key: UUID, *, provider_status: str,
    output_file_id: str | None, error_file_id: str | None, answered: int, failed: int, error: str | None,
) -> None:  # fmt: skip
    await conn.execute(
        query("batch_ledger/batch_ended"),
        {"batch_key": batch_key, "provider_status": provider_status, "output_file_id": output_file_id,
         "error_file_id": error_file_id, "answered": answered, "failed": failed,
         "error": redact(error)[:2000] if error else None},
    )  # fmt: skip


async def give_up(
    conn: psycopg.AsyncConnection, batch_key: UUID, status: str, error: str, run_id: UUID
) -> None:
    """`abandoned` or `unsent`: its waiting requests closed unanswered, their users pending again."""
    await conn.execute(
        query("batch_ledger/batch_given_up"),
        {"batch_key": batch_key, "status": status, "error": redact(error)[:2000], "run_id": run_id},
    )


async def close_requests(
    conn: psycopg.AsyncConnection, pairs: Sequence[tuple[UUID, str]], status: str,
    run_id: UUID, error_kind: str | None = None,
) -> set[tuple[UUID, str]]:  # fmt: skip
    """Close the waiting requests of these (batch, user) pairs (`error_kind`: why they failed), in one
    statement; returns the pairs that had some still waiting (a pair missing: closed by another run)."""
    cur = await conn.execute(
        query("batch_ledger/close_batch_requests"),
        {
            "batch_keys": [key for key, _u in pairs],
            "user_ids": [user_id for _k, user_id in pairs],
            "status": status,
            "run_id": run_id,
            "error_kind": error_kind,
        },
    )
    return {(key, user_id) for key, user_id in await cur.fetchall()}


async def truncated_last(conn: psycopg.AsyncConnection, user_ids: Sequence[str]) -> set[str]:
    """The users whose last batch answer was cut at max_tokens."""
    cur = await conn.execute(query("batch_ledger/truncated_last"), {"user_ids": list(user_ids)})
    return {row[0] for row in await cur.fetchall()}


async def mark_collected(conn: psycopg.AsyncConnection) -> int:
    cur = await conn.execute(query("batch_ledger/collected_batches"))
    return len(await cur.fetchall())


async def open_batches(conn: psycopg.AsyncConnection) -> list[OpenBatch]:
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(query("batch_ledger/open_batches"))
    return [OpenBatch(**row) for row in await cur.fetchall()]


async def run_batches(conn: psycopg.AsyncConnection, run_id: UUID) -> list[UUID]:
    cur = await conn.execute(query("batch_ledger/run_batches"), {"run_id": run_id})
    return [row[0] for row in await cur.fetchall()]


async def waiting(
    conn: psycopg.AsyncConnection,
    user_ids: Sequence[str] | None,
    purpose: str = "extract",
) -> dict[str, list[Waiting]]:
    """The waiting requests of one purpose of these users (None: everyone's), by user, in call order."""
    cur = conn.cursor(row_factory=dict_row)
    users = None if user_ids is None else list(user_ids)
    await cur.execute(query("batch_ledger/waiting_requests"), {"user_ids": users, "purpose": purpose})
    found: dict[str, list[Waiting]] = {}
    for row in await cur.fetchall():
        row["messages"] = tuple(
            Shown(m["handle"], m["conversation_id"], m["message_id"], m.get("kept")) for m in row["messages"]
        )
        row["signals"] = tuple((s["handle"], UUID(s["signal_id"])) for s in row["signals"])
        found.setdefault(row["user_id"], []).append(Waiting(**row))
    return found


async def asked_messages(
    conn: psycopg.AsyncConnection, settings: Settings, user_id: str, shown: Sequence[Shown], at: datetime
) -> dict[tuple[str, str], SourceMessage]:
    """The messages these requests showed, as the pipeline reads them now (text.clean), by (conversation,
    message); a message gone from the source is absent."""
    params = {
        "user_id": user_id,
        "conversation_ids": [m.conversation_id for m in shown],
        "message_ids": [m.message_id for m in shown],
        **decay.query_params(settings, at),
    }
    cur = await conn.execute(query("batch_ledger/asked_messages"), params)
    return {
        (conversation_id, message_id): SourceMessage.read(
            conversation_id, message_id, content, created_at, stale, agent_id
        )
        for conversation_id, message_id, content, created_at, stale, agent_id in await cur.fetchall()
    }


async def asked_signals(
    conn: psycopg.AsyncConnection, user_id: str, signal_ids: Sequence[UUID]
) -> dict[UUID, KnownSignal]:
    """The known signals these requests showed that are still active, by id."""
    cur = await conn.execute(
        query("batch_ledger/asked_signals"), {"user_id": user_id, "signal_ids": list(signal_ids)}
    )
    return {row[0]: KnownSignal(*row) for row in await cur.fetchall()}


async def users_waiting_in(conn: psycopg.AsyncConnection, batch_keys: Sequence[UUID]) -> list[str]:
    cur = await conn.execute(query("batch_ledger/users_waiting_in"), {"batch_keys": list(batch_keys)})
    return [row[0] for row in await cur.fetchall()]
