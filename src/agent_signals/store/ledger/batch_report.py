"""What the batch ledger (ops.batches, m017) shows a person: the provider batches not collected yet, with
their age (the run report's "Batches in flight", `agent-signals batches list`), and one batch found by its
key or provider id (`agent-signals batches cancel`). The pipeline's own reads and writes of the ledger are
in store/ledger/batch_ledger.py."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import psycopg

from agent_signals.config import Settings
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class BatchOut:
    """A batch not collected yet (sql/queries/batch_report/batches_out.sql); `-` for a provider id or word not
    known."""

    batch_key: UUID
    provider_batch_id: str
    status: str  # preparing, submitted or ended
    provider_status: str
    model: str
    prompt_version: str
    requests: int
    users_waiting: int
    age_s: float  # since it was sent (or prepared, when it never was)

    def too_old(self, settings: Settings) -> bool:
        """Out longer than AGENT_SIGNALS_BATCH_WARN_AGE_S and not ended (an ended one only waits for the next
        run to apply its answers)."""
        return self.status != "ended" and self.age_s > settings.batch.warn_age_s


@dataclass(frozen=True)
class FoundBatch:
    batch_key: UUID
    provider_batch_id: str | None
    status: str  # preparing, submitted, ended, collected, abandoned or unsent
    provider_status: str | None
    model: str
    requests: int
    run_running: bool  # the run that prepared it is still running


def batches_out(conn: psycopg.Connection) -> list[BatchOut]:
    """The batches not collected yet, oldest first."""
    return [BatchOut(*row) for row in conn.execute(query("batch_report/batches_out")).fetchall()]


def find_batch(conn: psycopg.Connection, key: str) -> FoundBatch | None:
    """The batch whose key (a UUID, any case) or provider batch id is `key`; None when there is none."""
    try:
        batch_key: UUID | None = UUID(key)
    except ValueError:
        batch_key = None
    row = conn.execute(query("batch_report/find_batch"), {"batch_key": batch_key, "key": key}).fetchone()
    return FoundBatch(*row) if row else None


def note_provider_status(conn: psycopg.Connection, batch_key: UUID, status: str) -> None:
    """The provider's word on a batch still `submitted` (after a cancel: cancelling, cancelled); the next run
    reads the batch again and records how it ended."""
    conn.execute(query("shared/batch_seen"), {"batch_key": batch_key, "provider_status": status})
