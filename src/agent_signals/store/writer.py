"""The write path's statements for one user, in the transaction its caller opened (stages/apply.py): the
proposals (creates, updates, reinforcements, evidence, events), the cap's merges and demotions
(stages/reconcile.py), the inline summary, the quarantined and rejected candidates (redacted), the
watermarks. Every statement is a file of sql/queries/; re-running the same writes changes nothing."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4, uuid5

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.batching import SourceMessage
from agent_signals.core.cap_plan import CoreRow, OwnRow
from agent_signals.core.redaction import redact_fields, redact_value
from agent_signals.core.screen import redact
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Proposal, Rejection
from agent_signals.store.embeddings import vector_text
from agent_signals.store.sqlfiles import query

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


def last_read(read: Sequence[SourceMessage]) -> list[SourceMessage]:
    """The last message read in each conversation (where its watermark moves to)."""
    last: dict[str, SourceMessage] = {}
    for message in read:
        seen = last.get(message.conversation_id)
        if seen is None or (message.created_at, message.message_id) > (seen.created_at, seen.message_id):
            last[message.conversation_id] = message
    return list(last.values())


class Writer:
    """The statements of one user's write transaction; `counts` says what they did, `touched` which signals
    they created or changed."""

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

    async def _one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        cur = self.conn.cursor(row_factory=dict_row)
        await cur.execute(query(self.settings, name), params)
        return await cur.fetchone() if cur.description else None

    async def _all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        cur = self.conn.cursor(row_factory=dict_row)
        await cur.execute(query(self.settings, name), params)
        return await cur.fetchall()

    async def lock_user(self) -> None:
        """Serialise the user's writes for the rest of the transaction."""
        await self._one("lock_user", {"user_id": self.user_id})

    async def _event(
        self, signal_id: UUID, action: str, before: Any, after: Any, *, actor: str = "pipeline"
    ) -> None:
        await self._one(
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

    # the proposals

    async def write(self, proposal: Proposal) -> None:
        await (self.create(proposal) if proposal.action == "create" else self.update(proposal))

    async def _cite(self, signal_id: UUID, proposal: Proposal) -> int:
        """Insert the proposal's evidence; returns how many messages are newly cited."""
        cur = await self.conn.execute(
            query(self.settings, "insert_evidence"),
            {"signal_id": signal_id, "run_id": self.prov.run_id, **_cited(proposal)},
        )
        return cur.rowcount

    async def _reinforce(self, signal_id: UUID, before: dict, proposal: Proposal) -> None:
        if await self._cite(signal_id, proposal) == 0:
            self.counts["unchanged"] += 1  # every cited message was already evidence: a replay
            return
        after = await self._one("sync_mentions", {"signal_id": signal_id})
        await self._event(signal_id, "reinforce", before, after["snapshot"])
        self.touched.add(signal_id)  # an archived signal mentioned again comes back
        self.counts["reinforced"] += 1

    async def _restates(self, proposal: Proposal, exclude: UUID | None = None) -> dict[str, Any] | None:
        """The signal this proposal restates: the same text, the user's own signal of an exclusive kind,
        or a near-duplicate in meaning (tombstones included). One round trip (find_restated.sql)."""
        return await self._one(
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
        existing = await self._restates(proposal)
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
        created = await self._one("insert_signal", params)  # with its `create` event and its evidence
        if created is None:
            # the deterministic id is taken by a signal whose text was later updated away from this one
            params["signal_id"] = uuid4()
            created = await self._one("insert_signal", params)
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
            await self._reinforce(existing["signal_id"], existing["snapshot"], proposal)

    async def update(self, proposal: Proposal) -> None:
        assert proposal.target is not None
        target = await self._one(
            "lock_signal", {"signal_id": proposal.target.signal_id, "user_id": self.user_id}
        )
        if target is None or target["origin"] != "inferred" or target["status"] != "active":
            await self.create(proposal)  # the signal changed since the prompt was built: treat as new
            return
        if proposal.normalized == proposal.target.normalized:
            await self._reinforce(target["signal_id"], target["snapshot"], proposal)
            return
        other = await self._restates(proposal, exclude=target["signal_id"])
        if (
            other is not None
        ):  # the new text is already another signal (or the user's own): that one is restated
            await self._restated(other, proposal)
            return
        await self._rewrite(
            target["signal_id"], proposal.content, proposal.normalized, proposal.kind, proposal.tier,
            _vector(proposal.embedding),
        )  # fmt: skip
        await self._cite(target["signal_id"], proposal)
        after = await self._one("sync_mentions", {"signal_id": target["signal_id"]})
        await self._event(target["signal_id"], "update", target["snapshot"], after["snapshot"])
        self.touched.add(target["signal_id"])
        self.counts["updated"] += 1

    async def _rewrite(
        self, signal_id: UUID, content: str, normalized: str, kind: str, tier: str, embedding: str | None
    ) -> None:
        """New text for a signal (embedding None keeps the one it has)."""
        await self._one(
            "rewrite_signal",
            {"signal_id": signal_id, "content": content, "normalized": normalized, "kind": kind,
             "tier": tier, "embedding": embedding},
        )  # fmt: skip

    # the cap

    async def core_signals(self) -> tuple[list[CoreRow], list[OwnRow]]:
        """The user's active inferred core signals, oldest first (locked), and the user's own signals."""
        rows = await self._all(
            "cap_signals", {"user_id": self.user_id, **decay.query_params(self.settings, self.at)}
        )
        core = [
            CoreRow(r["signal_id"], r["content"], r["kind"], r["mention_count"], r["last_seen_at"],
                    r["retention"], r["snapshot"], r["signal_id"] in self.touched)
            for r in rows
            if r["origin"] == "inferred"
        ]  # fmt: skip
        own = [OwnRow(r["content"], r["kind"]) for r in rows if r["origin"] == "manual"]
        return core, own

    async def merge(self, survivor: CoreRow, absorbed: Sequence[CoreRow], content: str) -> None:
        """The reconciler's merge: the absorbed signals point at the survivor, which takes their evidence
        and the new text (unless another signal of the user already has that text)."""
        copied: list[Any] = []
        for row in absorbed:
            result = await self._one(
                "absorb_signal",
                {"signal_id": row.signal_id, "survivor_id": survivor.signal_id, "run_id": self.prov.run_id},
            )
            copied.extend(result["copied"])
        normalized = normalize_content(content)
        clash = await self._one("find_signal_by_text", {"user_id": self.user_id, "normalized": normalized})
        if clash is None or clash["signal_id"] == survivor.signal_id:
            await self._rewrite(survivor.signal_id, content, normalized, survivor.kind, "core", None)
        after = await self._one("sync_mentions", {"signal_id": survivor.signal_id})
        await self._event(
            survivor.signal_id,
            "merge",
            {"survivor": survivor.snapshot, "absorbed": [r.snapshot for r in absorbed]},
            {
                "survivor": after["snapshot"],
                "absorbed": [str(r.signal_id) for r in absorbed],
                "copied": copied,
            },
            actor="reconciler",
        )
        self.counts["merged"] += len(absorbed)

    async def demote(self, row: CoreRow, reason: str) -> None:
        """A core signal to contextual; `reason` says who decided (reconciler, cap_rule)."""
        after = await self._one("set_tier", {"signal_id": row.signal_id, "tier": "contextual"})
        await self._event(
            row.signal_id, "demote", row.snapshot, {**after["snapshot"], "reason": reason}, actor="reconciler"
        )
        self.counts["demoted"] += 1

    # the rest of the user's transaction

    async def summarize(self, summary: str) -> None:
        """The extraction answer's summary of exactly what was written (no separate summary call)."""
        cur = await self.conn.execute(
            query(self.settings, "upsert_summary"),
            {
                "user_id": self.user_id,
                "summary": " ".join(summary.split()),
                "fingerprint": None,
                "signal_count": None,
                "model": self.prov.model,
                "prompt_version": self.prov.prompt_version,
                "run_id": self.prov.run_id,
            },
        )
        self.counts["summarized_inline"] += cur.rowcount

    async def close_out(
        self, quarantine: Sequence[tuple[Proposal, str]], rejected: Sequence[Rejection], read: Sequence[SourceMessage]
    ) -> None:  # fmt: skip
        """What needs no answer, in one round trip (psycopg's pipeline mode): the quarantined candidates,
        the rejected actions (redacted), the watermarks past every message read (released set-aside messages
        among them are read again) and the user's failures resolved."""
        settings, prov, user_id = self.settings, self.prov, self.user_id
        async with self.conn.pipeline():
            cur = self.conn.cursor()
            for proposal, reason in quarantine:  # held for review, never written as a signal
                await cur.execute(
                    query(settings, "insert_quarantine"),
                    {
                        "run_id": prov.run_id,
                        "user_id": user_id,
                        "content": redact(proposal.content),
                        "kind": proposal.kind,
                        "tier": proposal.tier,
                        "evidence": Jsonb([
                            {"conversation_id": c.message.conversation_id, "message_id": c.message.message_id,
                             "quote": redact(c.quote)}
                            for c in proposal.evidence
                        ]),
                        "reason": redact(reason),
                    },
                )  # fmt: skip
                self.counts["quarantined"] += 1
            if rejected:
                await cur.executemany(
                    query(settings, "insert_rejected_action"),
                    [
                        {
                            "run_id": prov.run_id, "user_id": user_id, "stage": r.stage,
                            "action": Jsonb(redact_value(r.written)),
                            "messages": Jsonb([
                                {"conversation_id": m.conversation_id, "message_id": m.message_id}
                                for m in r.cites
                            ]),
                            "reason": redact(r.reason), "prompt_version": prov.prompt_version,
                            "model": prov.model,
                        }
                        for r in rejected
                    ],
                )  # fmt: skip
            last = last_read(read)
            if last:
                await cur.executemany(
                    query(settings, "advance_watermark"),
                    [
                        {"conversation_id": message.conversation_id, "user_id": user_id,
                         "last_message_at": message.created_at, "last_message_id": message.message_id,
                         "run_id": prov.run_id}
                        for message in last
                    ],
                )  # fmt: skip
            await cur.execute(
                query(settings, "mark_read_again"),
                {"conversation_ids": [m.conversation_id for m in read], "message_ids": [m.message_id for m in read],
                 "run_id": prov.run_id},
            )  # fmt: skip
            await cur.execute(
                query(settings, "resolve_failures"), {"user_id": user_id, "run_id": prov.run_id}
            )
