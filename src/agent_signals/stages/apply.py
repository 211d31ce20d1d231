"""Apply one user's validated proposals in one transaction: creates, updates, reinforcements, evidence,
events, quarantined and rejected candidates (redacted) and watermarks. Re-applying the same proposals
changes nothing."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4, uuid5

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.batching import SourceMessage
from agent_signals.core.redaction import redact_fields, redact_value
from agent_signals.core.screen import redact
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.stages.reconcile import Decide, enforce_cap
from agent_signals.store.embeddings import vector_text
from agent_signals.store.sqlfiles import query

# Outcomes after which the model's summary no longer describes what was written.
SUMMARY_SPOILERS = (
    "skipped_manual",
    "skipped_tombstone",
    "merged",
    "demoted",
    "reconcile_invalid",
    "reconcile_failed",
)
SIGNAL_NAMESPACE = UUID("6f1c2b7e-3d5a-4e8f-9b1a-2c4d6e8fa0b1")


def signal_id_for(user_id: str, normalized: str) -> UUID:
    """Deterministic id of a new inferred signal: replays of the same window create the same ids."""
    return uuid5(SIGNAL_NAMESPACE, f"{user_id}\x00{normalized}")


@dataclass(frozen=True)
class Provenance:
    run_id: UUID
    prompt_version: str
    model: str


@functools.lru_cache(maxsize=256)
def _vector(embedding: tuple[float, ...] | None) -> str | None:
    """A proposal's embedding in pgvector's text form, formatted once however many statements use it."""
    return vector_text(embedding)


def _cited(proposal: Proposal) -> dict[str, list]:
    """A proposal's evidence as the parallel arrays insert_signal.sql and insert_evidence.sql take."""
    return {
        "conversation_ids": [c.message.conversation_id for c in proposal.evidence],
        "message_ids": [c.message.message_id for c in proposal.evidence],
        "quotes": [c.quote for c in proposal.evidence],
        "message_ats": [c.message.created_at for c in proposal.evidence],
    }


class _Writer:
    """The statements of one user's transaction."""

    def __init__(
        self, conn: psycopg.AsyncConnection, settings: Settings, user_id: str, prov: Provenance, at: datetime
    ):
        self.conn = conn
        self.settings = settings
        self.user_id = user_id
        self.prov = prov
        self.at = at  # the run's time: decay is decided at it
        self.counts: Counter[str] = Counter()
        self.touched: set[UUID] = set()  # signals created or changed in this transaction

    async def one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        cur = self.conn.cursor(row_factory=dict_row)
        await cur.execute(query(self.settings, name), params)
        return await cur.fetchone() if cur.description else None

    async def all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        cur = self.conn.cursor(row_factory=dict_row)
        await cur.execute(query(self.settings, name), params)
        return await cur.fetchall()

    async def event(
        self, signal_id: UUID, action: str, before: Any, after: Any, *, actor: str = "pipeline"
    ) -> None:
        await self.one(
            "insert_event",
            {
                "signal_id": signal_id,
                "user_id": self.user_id,
                "run_id": self.prov.run_id,
                "action": action,
                "actor": actor,
                "prompt_version": self.prov.prompt_version,
                "model": self.prov.model,
                "before": Jsonb(redact_fields(before)) if before is not None else None,
                "after": Jsonb(redact_fields(after)) if after is not None else None,
            },
        )

    async def cite(self, signal_id: UUID, proposal: Proposal) -> int:
        """Insert the proposal's evidence; returns how many messages are newly cited."""
        cur = await self.conn.execute(
            query(self.settings, "insert_evidence"),
            {"signal_id": signal_id, "run_id": self.prov.run_id, **_cited(proposal)},
        )
        return cur.rowcount

    async def reinforce(self, signal_id: UUID, before: dict, proposal: Proposal) -> None:
        if await self.cite(signal_id, proposal) == 0:
            self.counts["unchanged"] += 1  # every cited message was already evidence: a replay
            return
        after = await self.one("sync_mentions", {"signal_id": signal_id})
        await self.event(signal_id, "reinforce", before, after["snapshot"])
        self.touched.add(signal_id)  # an archived signal mentioned again comes back
        self.counts["reinforced"] += 1

    async def restates(self, proposal: Proposal, exclude: UUID | None = None) -> dict[str, Any] | None:
        """The signal this proposal restates: the same text, the user's own signal of an exclusive kind,
        or a near-duplicate in meaning (tombstones included). One round trip (find_restated.sql)."""
        return await self.one(
            "find_restated",
            {
                "user_id": self.user_id,
                "normalized": proposal.normalized,
                "kind": proposal.kind,
                "exclusive": proposal.kind in self.settings.exclusive_kinds,
                "embedding": _vector(proposal.embedding),
                "threshold": self.settings.near_duplicate_similarity,
                "exclude": exclude,
            },
        )

    async def create(self, proposal: Proposal) -> None:
        existing = await self.restates(proposal)
        if existing is not None:
            await self._restated(existing, proposal)
            return
        seen = [c.message.created_at for c in proposal.evidence]
        params = {
            "signal_id": signal_id_for(self.user_id, proposal.normalized),
            "user_id": self.user_id,
            "content": proposal.content,
            "normalized": proposal.normalized,
            "kind": proposal.kind,
            "tier": proposal.tier,
            "first_seen_at": min(seen),
            "last_seen_at": max(seen),
            "embedding": _vector(proposal.embedding),
            # a new signal's mentions are its distinct cited messages (what sync_mentions would count)
            "mentions": len({(c.message.conversation_id, c.message.message_id) for c in proposal.evidence}),
            "run_id": self.prov.run_id,
            "prompt_version": self.prov.prompt_version,
            "model": self.prov.model,
            **_cited(proposal),
            **decay.query_params(self.settings, self.at),
        }
        created = await self.one("insert_signal", params)  # with its `create` event and its evidence
        if created is None:
            # the deterministic id is taken by a signal whose text was later updated away from this one
            params["signal_id"] = uuid4()
            created = await self.one("insert_signal", params)
        assert created is not None
        signal_id = params["signal_id"]
        self.touched.add(signal_id)
        self.counts["created"] += 1
        if created["status"] == "archived":  # too old to stay: decay would archive it at once
            self.counts["archived"] += 1

    async def _restated(self, existing: dict, proposal: Proposal) -> None:
        if existing["origin"] == "manual":
            self.counts["skipped_manual"] += 1  # the user's own word wins
        elif existing["status"] == "deleted":
            self.counts["skipped_tombstone"] += 1  # the user deleted it: never silently re-created
        else:
            await self.reinforce(existing["signal_id"], existing["snapshot"], proposal)

    async def update(self, proposal: Proposal) -> None:
        assert proposal.target is not None
        target = await self.one(
            "lock_signal", {"signal_id": proposal.target.signal_id, "user_id": self.user_id}
        )
        if target is None or target["origin"] != "inferred" or target["status"] != "active":
            await self.create(proposal)  # the signal changed since the prompt was built: treat as new
            return
        if proposal.normalized == proposal.target.normalized:
            await self.reinforce(target["signal_id"], target["snapshot"], proposal)
            return
        other = await self.restates(proposal, exclude=target["signal_id"])
        if (
            other is not None
        ):  # the new text is already another signal (or the user's own): that one is restated
            await self._restated(other, proposal)
            return
        await self.one(
            "rewrite_signal",
            {
                "signal_id": target["signal_id"],
                "content": proposal.content,
                "normalized": proposal.normalized,
                "kind": proposal.kind,
                "tier": proposal.tier,
                "embedding": _vector(proposal.embedding),
            },
        )
        await self.cite(target["signal_id"], proposal)
        after = await self.one("sync_mentions", {"signal_id": target["signal_id"]})
        await self.event(target["signal_id"], "update", target["snapshot"], after["snapshot"])
        self.touched.add(target["signal_id"])
        self.counts["updated"] += 1


def last_read(read: Sequence[SourceMessage]) -> list[SourceMessage]:
    """The last message read in each conversation (where its watermark moves to)."""
    last: dict[str, SourceMessage] = {}
    for message in read:
        seen = last.get(message.conversation_id)
        if seen is None or (message.created_at, message.message_id) > (seen.created_at, seen.message_id):
            last[message.conversation_id] = message
    return list(last.values())


async def apply_user(
    conn: psycopg.AsyncConnection,
    settings: Settings,
    user_id: str,
    proposals: list[Proposal],
    read: list[SourceMessage],
    prov: Provenance,
    *,
    quarantine: Sequence[tuple[Proposal, str]] = (),
    rejected: Sequence[Rejection] = (),
    summary: str | None = None,
    decide: Decide | None = None,
    at: datetime | None = None,
    dry_run: bool = False,
) -> Counter[str]:
    """One transaction: the proposals, their events, the write-time cap (reconciliation only when a write
    crossed it), the quarantined and the rejected candidates (redacted), the user's watermarks past every
    message read (released set-aside messages among them are read again). A dry run does all of it, counts
    what changed, and rolls back."""
    at = at or datetime.now(UTC)
    async with conn.transaction(force_rollback=dry_run):
        writer = _Writer(conn, settings, user_id, prov, at)
        await writer.one("lock_user", {"user_id": user_id})
        for proposal in proposals:
            await (writer.create(proposal) if proposal.action == "create" else writer.update(proposal))
        if writer.touched:
            await enforce_cap(writer, decide, at)
        if summary and writer.touched and not any(writer.counts.get(k) for k in SUMMARY_SPOILERS):
            # the extraction call wrote the summary of exactly this set: no separate summary call (none when
            # nothing stays active)
            cur = await conn.execute(
                query(settings, "upsert_summary"),
                {
                    "user_id": user_id,
                    "summary": " ".join(summary.split()),
                    "fingerprint": None,
                    "signal_count": None,
                    "model": prov.model,
                    "prompt_version": prov.prompt_version,
                    "run_id": prov.run_id,
                },
            )
            writer.counts["summarized_inline"] += cur.rowcount
        # what is left needs no answer: sent in one round trip (psycopg's pipeline mode)
        async with conn.pipeline():
            cur = conn.cursor()
            for proposal, reason in quarantine:  # held for review, never written as a signal
                await cur.execute(
                    query(settings, "insert_quarantine"),
                    {
                        "run_id": prov.run_id,
                        "user_id": user_id,
                        "content": redact(proposal.content),
                        "kind": proposal.kind,
                        "tier": proposal.tier,
                        "evidence": Jsonb(
                            [
                                {
                                    "conversation_id": c.message.conversation_id,
                                    "message_id": c.message.message_id,
                                    "quote": redact(c.quote),
                                }
                                for c in proposal.evidence
                            ]
                        ),
                        "reason": redact(reason),
                    },
                )
                writer.counts["quarantined"] += 1
            if rejected:
                await cur.executemany(
                    query(settings, "insert_rejected_action"),
                    [
                        {
                            "run_id": prov.run_id,
                            "user_id": user_id,
                            "stage": r.stage,
                            "action": Jsonb(redact_value(r.written)),
                            "messages": Jsonb(
                                [
                                    {"conversation_id": m.conversation_id, "message_id": m.message_id}
                                    for m in r.cites
                                ]
                            ),
                            "reason": redact(r.reason),
                            "prompt_version": prov.prompt_version,
                            "model": prov.model,
                        }
                        for r in rejected
                    ],
                )
            last = last_read(read)
            if last:
                await cur.executemany(
                    query(settings, "advance_watermark"),
                    [
                        {
                            "conversation_id": message.conversation_id,
                            "user_id": user_id,
                            "last_message_at": message.created_at,
                            "last_message_id": message.message_id,
                            "run_id": prov.run_id,
                        }
                        for message in last
                    ],
                )
            await cur.execute(
                query(settings, "mark_read_again"),
                {"conversation_ids": [m.conversation_id for m in read], "message_ids": [m.message_id for m in read],
                 "run_id": prov.run_id},
            )  # fmt: skip
            await cur.execute(
                query(settings, "resolve_failures"), {"user_id": user_id, "run_id": prov.run_id}
            )
    return writer.counts
