"""The write path's statements for a group of users (a shard, or one user alone), in the transaction its
caller opened (stages/apply.py): set-based. Rows built in Python go to the database as polars frames,
COPYed into staging tables (sql/migrations/m019_apply_staging.sql) or straight into the tables nothing else
refers to (events, quarantine, rejected actions); each table is then written by one statement for the
whole group. Every statement is a file of sql/queries/; re-running the same writes changes nothing.

A user's proposals are applied in order, each seeing what the ones before it wrote (an answer can create a
signal and restate it in its next action). The group goes in rounds: round r resolves and writes the r-th
proposal of every user with that many, so a round's statements never see two proposals of one user, and
the number of statements follows the longest answer in the group, not the number of users.

Per round: the candidates COPYed, resolved against the signals as they are (apply_resolve.sql: the target of
an update or end, the signal the candidate restates); then the new signals with their events and evidence
(apply_create.sql: creates, and the new versions of facts updates changed), the evidence of the signals
restated (apply_cite.sql), the validity given to signals that exist (apply_validity.sql: an update's old
version and an `end` ended, a restatement's days filled), the mention counts of the signals restated
(sync_mentions.sql) and their events (COPY). A signal's text is never rewritten.

A candidate held for review (screen.py's `hold`) goes through the same rounds and statements, and is written
as a new signal of status `pending` with the reason (apply_create.sql), its evidence and `create` event like
any other. It never changes a signal agents may read: restating a signal that is pending adds its evidence
(the signal stays pending), restating any other is not written (`skipped_held`). Any candidate restating a
pending signal leaves it pending (`restated_pending`); one restating a signal a reviewer rejected is not
written (`skipped_rejected`: a rejected text is a tombstone, as a deleted one is)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple
from uuid import UUID, uuid4, uuid5

import polars as pl
import psycopg
from psycopg.rows import dict_row

from agent_signals.config import Settings
from agent_signals.core import decay
from agent_signals.core.actions import Count, action_of
from agent_signals.core.cap_plan import CoreRow, OwnRow
from agent_signals.core.outcome import Provenance, UserOutcome
from agent_signals.core.prompting.extract_calls import SourceMessage
from agent_signals.core.screening.redaction import redact_fields, redact_value
from agent_signals.core.screening.screen import redact
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Cite, Proposal, Rejection
from agent_signals.store.embeddings import vector_text
from agent_signals.store.sqlfiles import query

SIGNAL_NAMESPACE = UUID("6f1c2b7e-3d5a-4e8f-9b1a-2c4d6e8fa0b1")
# a restatement gives no validity to a tombstone (deleted, rejected) nor to a signal waiting for review
UNFILLED = frozenset({"deleted", "pending", "rejected"})


def signal_id_for(user_id: str, normalized: str, agent_id: str | None = None) -> UUID:
    """Deterministic id of a new inferred signal: replays of the same window create the same ids (a
    profile signal's id is what it was before scopes)."""
    scoped = "" if agent_id is None else f"\x00{agent_id}"
    return uuid5(SIGNAL_NAMESPACE, f"{user_id}\x00{normalized}{scoped}")


def last_read(read: Sequence[SourceMessage]) -> list[SourceMessage]:
    """The last message read in each conversation (where its watermark moves to)."""
    last: dict[str, SourceMessage] = {}
    for message in read:
        seen = last.get(message.conversation_id)
        if seen is None or (message.created_at, message.message_id) > (seen.created_at, seen.message_id):
            last[message.conversation_id] = message
    return list(last.values())


# The frames COPYed, by table: column -> polars type (text for vectors, uuids and JSON).
TEXT, INT, BOOL, TIME = pl.String, pl.Int64, pl.Boolean, pl.Datetime("us", "UTC")
FRAMES: dict[str, dict[str, Any]] = {
    "staging.apply_candidates": {
        "batch": TEXT, "seq": INT, "user_id": TEXT, "normalized": TEXT, "kind": TEXT, "exclusive": BOOL, "embedding": TEXT,
        "target": TEXT, "agent_id": TEXT,
    },
    "staging.apply_new_signals": {
        "batch": TEXT, "signal_id": TEXT, "user_id": TEXT, "content": TEXT, "normalized": TEXT, "kind": TEXT, "tier": TEXT,
        "first_seen_at": TIME, "last_seen_at": TIME, "embedding": TEXT, "mentions": INT, "run_id": TEXT,
        "prompt_version": TEXT, "model": TEXT, "agent_id": TEXT, "valid_from": TIME, "valid_to": TIME,
        "supersedes": TEXT, "review_reason": TEXT,
    },
    "staging.apply_new_evidence": {
        "batch": TEXT, "signal_id": TEXT, "conversation_id": TEXT, "message_id": TEXT, "quote": TEXT, "message_at": TIME,
    },
    "staging.apply_cited_evidence": {
        "batch": TEXT, "signal_id": TEXT, "conversation_id": TEXT, "message_id": TEXT, "quote": TEXT, "message_at": TIME,
    },
    "signals.events": {
        "signal_id": TEXT, "user_id": TEXT, "run_id": TEXT, "action": TEXT, "actor": TEXT,
        "prompt_version": TEXT, "model": TEXT, "before": TEXT, "after": TEXT,
    },
    "ops.quarantine": {
        "run_id": TEXT, "user_id": TEXT, "content": TEXT, "kind": TEXT, "tier": TEXT, "evidence": TEXT,
        "reason": TEXT,
    },
    "ops.rejected_actions": {
        "run_id": TEXT, "user_id": TEXT, "stage": TEXT, "action": TEXT, "messages": TEXT, "reason": TEXT,
        "prompt_version": TEXT, "model": TEXT,
    },
}  # fmt: skip


def frame(table: str, rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Rows for `table`, each a mapping of its COPY columns (FRAMES) to values, as a polars frame. A row
    names exactly the table's columns: one missing or unknown is an error, never a null."""
    schema, rows = FRAMES[table], list(rows)
    for row in rows:
        if row.keys() != schema.keys():
            raise ValueError(f"{table}: a row of columns {sorted(row)}, not {sorted(schema)}")
    return pl.DataFrame({column: [row[column] for row in rows] for column in schema}, schema=schema)


async def copy_frame(conn: psycopg.AsyncConnection, table: str, data: pl.DataFrame) -> None:
    """A frame COPYed into `table` as CSV (null: an unquoted empty field; an empty string is quoted)."""
    if data.is_empty():
        return
    columns = ", ".join(data.columns)
    cur = conn.cursor()
    async with cur.copy(f"copy {table} ({columns}) from stdin (format csv)") as copy:
        await copy.write(data.write_csv(include_header=False).encode())


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str)


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def _maybe_utc(moment: datetime | None) -> datetime | None:
    return None if moment is None else _utc(moment)


def _evidence(signal_id: UUID, cite: Cite) -> dict[str, Any]:
    """A staged evidence row (staging.apply_new_evidence, staging.apply_cited_evidence)."""
    message = cite.message
    return {
        "signal_id": str(signal_id),
        "conversation_id": message.conversation_id,
        "message_id": message.message_id,
        "quote": cite.quote,
        "message_at": _utc(message.created_at),
    }


@dataclass(frozen=True)
class _Signal:
    """A signal as a resolve saw it."""

    signal_id: UUID
    origin: str
    status: str
    snapshot: dict[str, Any]


@dataclass
class _Sync:
    """A signal restated this round, whose evidence may have grown: its event once its mentions are synced."""

    signal_id: UUID
    user_id: str
    before: dict[str, Any]
    prov: Provenance
    pending: bool = False  # the signal waits for review: it stays pending


class _Create(NamedTuple):
    """A new signal: a create, or the new version of a fact an update changed (`supersedes`: the old one);
    `held`: why it is held for review (written pending), or None."""

    user_id: str
    prov: Provenance
    p: Proposal
    supersedes: UUID | None = None
    held: str | None = None


def _new_signal(signal_id: UUID, create: _Create, embedding: str | None) -> dict[str, Any]:
    """A staged new signal (staging.apply_new_signals); `embedding` is its vector's text (vector_text)."""
    p, prov = create.p, create.prov
    said = [c.message.created_at for c in p.evidence]
    return {
        "signal_id": str(signal_id),
        "user_id": create.user_id,
        "content": p.content,
        "normalized": p.normalized,
        "kind": p.kind,
        "tier": p.tier,
        "first_seen_at": _utc(min(said)),
        "last_seen_at": _utc(max(said)),
        "embedding": embedding,
        # its mentions are its distinct cited messages (what sync_mentions would count)
        "mentions": len({c.message_key for c in p.evidence}),
        "run_id": str(prov.run_id),
        "prompt_version": prov.prompt_version,
        "model": prov.model,
        "agent_id": p.agent_id,
        "valid_from": _maybe_utc(p.valid_from),
        "valid_to": _maybe_utc(p.valid_to),
        "supersedes": None if create.supersedes is None else str(create.supersedes),
        "review_reason": None if create.held is None else redact(create.held),
    }


@dataclass(frozen=True)
class _Bound:
    """Validity given to a signal that exists (apply_validity.sql's modes: end, fill, reopen)."""

    signal_id: UUID
    user_id: str
    mode: str
    valid_from: datetime | None
    valid_to: datetime | None
    said_at: datetime
    prov: Provenance
    agent_id: str | None = None  # a fill's scope: a profile fact narrowed to this agent (apply_validity.sql)

    @classmethod
    def fill(cls, signal: _Signal, user_id: str, p: Proposal, prov: Provenance) -> _Bound | None:
        """What a restatement says of a known fact's time and scope: an ended fact stated again as holding,
        after its end, reopens; else the days it names fill what the signal lacks, and an agent's scope may
        narrow a profile fact (None: it says nothing the signal lacks)."""
        ended = signal.snapshot.get("valid_to") if signal.status == "ended" else None
        if ended is not None:
            if p.valid_to is None and _utc(p.said_at) > datetime.fromisoformat(ended):
                return cls(signal.signal_id, user_id, "reopen", None, None, p.said_at, prov)
            return None
        scope = p.agent_id is not None and signal.snapshot.get("agent_id") is None
        if not scope and p.valid_to is None and (p.valid_from is None or signal.snapshot.get("valid_from")):
            return None
        return cls(signal.signal_id, user_id, "fill", p.valid_from, p.valid_to, p.said_at, prov, p.agent_id)

    @classmethod
    def closing(cls, old: _Signal, user_id: str, p: Proposal, prov: Provenance) -> _Bound:
        """The old version of a fact an update changed ends where the new one begins (else when it was said)."""
        return cls(old.signal_id, user_id, "end", None, p.valid_from or p.said_at, p.said_at, prov)


@dataclass
class _Round:
    """What one round's candidates come to: the signals to create, the signals restated (their evidence and
    events), the validity given to signals that exist (None: a restatement that says nothing a signal
    lacks)."""

    creates: list[_Create] = field(default_factory=list)
    syncs: list[_Sync] = field(default_factory=list)
    bounds: list[_Bound | None] = field(default_factory=list)


class _Candidate:
    """One candidate of a round, resolved (apply_resolve.sql), as its kind's handler sees it (core/actions.py:
    Write): what it does adds to the round."""

    def __init__(
        self, round_: _Round, counts: Counter[Count], user_id: str, prov: Provenance, p: Proposal, row: dict
    ) -> None:
        self.round, self.counts = round_, counts
        self.user_id, self.prov, self.proposal = user_id, prov, p
        target = self.target = _found(row, "target")  # the signal it names, as it is now
        self.live = target is not None and target.origin == "inferred" and target.status == "active"
        self.existing = _found(row, "same") or _found(row, "own") or _found(row, "near")  # what it restates

    def count(self, counter: Count) -> None:
        self.counts[counter] += 1

    def end_target(self) -> None:
        p, target = self.proposal, self.target
        assert target is not None
        self.round.bounds.append(
            _Bound(target.signal_id, self.user_id, "end", None, p.valid_to, p.said_at, self.prov)
        )

    def restate_target(self) -> None:
        assert self.target is not None
        self._sync(self.target)
        self.round.bounds.append(_Bound.fill(self.target, self.user_id, self.proposal, self.prov))

    def state_fact(self, *, replaces_target: bool) -> None:
        p, existing, replaced = self.proposal, self.existing, self.target if replaces_target else None
        if existing is not None:
            self._restated(existing)
            if existing.origin == "inferred" and existing.status not in UNFILLED:
                self.round.bounds.append(_Bound.fill(existing, self.user_id, p, self.prov))
            # changed to a fact already known: the old version ends all the same
            if replaced is not None and existing.signal_id != replaced.signal_id:
                self.round.bounds.append(_Bound.closing(replaced, self.user_id, p, self.prov))
        elif replaced is not None:  # the fact changed: its old version ends where the new one begins
            self.round.creates.append(_Create(self.user_id, self.prov, p, replaced.signal_id))
            self.round.bounds.append(_Bound.closing(replaced, self.user_id, p, self.prov))
        else:
            self.round.creates.append(_Create(self.user_id, self.prov, p))

    def hold(self, reason: str) -> None:
        """Held for review: a new signal of status pending (an update's names the version it would replace,
        which stays as it is until a reviewer approves), or the evidence of the pending signal it restates.
        It never reinforces, ends or fills a signal agents may read (`skipped_held`). Only a kind that waits
        for review (core/actions.py) is held."""
        p, existing = self.proposal, self.existing
        live = self.target if self.live else None
        if existing is None and live is not None and p.normalized == live.snapshot.get("normalized"):
            existing = live  # an update that restates its own target
        if existing is None:
            replaced = live.signal_id if live is not None else None
            self.round.creates.append(_Create(self.user_id, self.prov, p, replaced, reason))
        elif existing.origin == "inferred" and existing.status == "pending":
            self.counts[Count.HELD_FOR_REVIEW] += 1
            self._sync(existing, pending=True)
        elif existing.origin == "inferred" and existing.status not in ("deleted", "rejected"):
            self.counts[Count.SKIPPED_HELD] += 1
        else:
            self._restated(existing)  # the user's own, or a tombstone: skipped

    def _restated(self, existing: _Signal) -> None:
        if existing.origin == "manual":
            self.counts[Count.SKIPPED_MANUAL] += 1  # the user's own word wins
        elif existing.status == "deleted":
            self.counts[Count.SKIPPED_TOMBSTONE] += 1  # the user deleted it: never silently re-created
        elif existing.status == "rejected":
            self.counts[Count.SKIPPED_REJECTED] += 1  # a reviewer rejected it: never learned again
        elif existing.status == "pending":
            self.counts[Count.RESTATED_PENDING] += 1  # its evidence grows; only a reviewer activates it
            self._sync(existing, pending=True)
        else:
            self._sync(existing)

    def _sync(self, signal: _Signal, pending: bool = False) -> None:
        self.round.syncs.append(_Sync(signal.signal_id, self.user_id, signal.snapshot, self.prov, pending))


class ShardWriter:
    """The statements of one group's write transaction; `counts[user]` says what they did for a user,
    `touched[user]` which of the user's signals they created or changed."""

    def __init__(self, conn: psycopg.AsyncConnection, settings: Settings, run_id: UUID, at: datetime):
        self.conn = conn
        self.settings = settings
        self.run_id = run_id
        self.at = at  # the run's time: decay is decided at it
        self.write_key = str(uuid4())  # this write's rows in the staging tables
        self.counts: dict[str, Counter[Count]] = defaultdict(Counter)
        self.touched: dict[str, set[UUID]] = defaultdict(set)

    async def _rows(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        cur = self.conn.cursor(row_factory=dict_row)
        await cur.execute(query(name), params)
        return await cur.fetchall() if cur.description else []

    async def begin(self, user_ids: Sequence[str]) -> None:
        """The users' write locks (user id order)."""
        await self._rows("shared/lock_users", {"user_ids": sorted(user_ids)})

    async def _stage(self, table: str, rows: Iterable[dict[str, Any]]) -> None:
        """Rows COPYed into a staging table (m019) under this transaction's key (its `batch` column)."""
        await copy_frame(self.conn, table, frame(table, ({"batch": self.write_key, **row} for row in rows)))

    async def _events(self, rows: list[tuple]) -> None:
        """signals.events rows (signal, user, action, actor, provenance, before, after), before and after
        redacted."""
        events = (
            {
                "signal_id": str(signal_id),
                "user_id": user_id,
                "run_id": str(self.run_id),
                "action": action,
                "actor": actor,
                "prompt_version": prov.prompt_version,
                "model": prov.model,
                "before": _json(redact_fields(before)),
                "after": _json(redact_fields(after)),
            }
            for signal_id, user_id, action, actor, prov, before, after in rows
        )
        await copy_frame(self.conn, "signals.events", frame("signals.events", events))

    # the proposals, round by round

    async def write(self, candidates: Sequence[tuple[UserOutcome, Proposal, str | None]]) -> None:
        """One round: at most one candidate per user (its outcome, the proposal, and why it is held for
        review, or None), each applied as if alone by its kind's handler (core/actions.py): creates, updates,
        ends, reinforcements, evidence, events."""
        assert len({o.user_id for o, _p, _held in candidates}) == len(candidates), "one candidate per user"
        exclusive = self.settings.run.exclusive_kinds
        # each vector's text made once: it is staged with its candidate and again with the signal it creates
        vectors = {id(p): vector_text(p.embedding) for _o, p, _held in candidates}
        staged = (
            {
                "seq": seq,
                "user_id": o.user_id,
                "normalized": p.normalized,
                "kind": p.kind,
                "exclusive": p.kind in exclusive,
                "embedding": vectors[id(p)],
                "target": None if p.target is None else str(p.target.signal_id),  # an update's, an end's
                "agent_id": p.agent_id,
            }
            for seq, (o, p, _held) in enumerate(candidates)
        )
        await self._stage("staging.apply_candidates", staged)
        resolved = await self._rows(
            "shard_writer/apply_resolve",
            {"write_key": self.write_key, "threshold": self.settings.screening.near_duplicate_similarity},
        )
        round_ = _Round()
        for row in resolved:
            outcome, p, held = candidates[row["seq"]]
            candidate = _Candidate(
                round_, self.counts[outcome.user_id], outcome.user_id, outcome.prov, p, row
            )
            if held is not None:
                candidate.hold(held)
            else:
                action_of(p).write(candidate)
        await self._create(round_.creates, vectors)
        await self._cite(round_.syncs, {o.user_id: p for o, p, _held in candidates})
        await self._bound(round_.bounds)
        await self._sync(round_.syncs)

    async def _create(self, creates: list[_Create], vectors: dict[int, str | None]) -> None:
        """New signals (apply_create.sql); one whose deterministic id is taken (a signal whose text was later
        updated away from this one) is written again under a new id."""
        ids = [signal_id_for(c.user_id, c.p.normalized, c.p.agent_id) for c in creates]
        while creates:
            pairs = list(zip(ids, creates, strict=True))
            await self._stage(
                "staging.apply_new_signals", (_new_signal(i, c, vectors[id(c.p)]) for i, c in pairs)
            )
            await self._stage(
                "staging.apply_new_evidence", (_evidence(i, e) for i, c in pairs for e in c.p.evidence)
            )
            created = {
                row["signal_id"]: row["status"]
                for row in await self._rows(
                    "shard_writer/apply_create",
                    {"write_key": self.write_key, **decay.query_params(self.settings, self.at)},
                )
            }
            taken = []
            for signal_id, create in zip(ids, creates, strict=True):
                user_id = create[0]
                if signal_id not in created:
                    taken.append(create)
                    continue
                if create.held is not None:  # waits for a reviewer: nothing agents read changed
                    self.counts[user_id][Count.HELD_FOR_REVIEW] += 1
                    continue
                self.touched[user_id].add(signal_id)
                self.counts[user_id][Count.UPDATED if create.supersedes else Count.CREATED] += 1
                if created[signal_id] == "archived":  # too old to stay: decay would archive it at once
                    self.counts[user_id][Count.ARCHIVED] += 1
                elif created[signal_id] == "ended":  # a fact that had already stopped holding
                    self.counts[user_id][Count.ENDED] += 1
            creates, ids = taken, [uuid4() for _c in taken]

    async def _cite(self, syncs: list[_Sync], cites: dict[str, Proposal]) -> None:
        """The evidence of every signal restated (apply_cite.sql); a reinforcement that cites no new message
        changes nothing (`unchanged`: a replay)."""
        if not syncs:
            return
        await self._stage(
            "staging.apply_cited_evidence",
            (_evidence(s.signal_id, c) for s in syncs for c in cites[s.user_id].evidence),
        )
        new = {
            row["signal_id"]: row["new"]
            for row in await self._rows(
                "shard_writer/apply_cite", {"write_key": self.write_key, "run_id": self.run_id}
            )
        }
        kept = []
        for s in syncs:
            if new.get(s.signal_id):
                kept.append(s)
            else:
                self.counts[s.user_id][Count.UNCHANGED] += 1  # every cited message was already evidence
        syncs[:] = kept

    async def _bound(self, bounds: list[_Bound | None]) -> None:
        """The validity the round gives signals that exist (apply_validity.sql: ends, fills, reopens), an
        event each that changed."""
        # one per signal: a round holds one proposal a user, whose bounds name different signals
        by_id = {b.signal_id: b for b in bounds if b is not None}
        if not by_id:
            return
        given = list(by_id.values())
        rows = await self._rows("shard_writer/apply_validity", {
            "signal_ids": list(by_id), "modes": [b.mode for b in given], "valid_from": [b.valid_from for b in given],
            "valid_to": [b.valid_to for b in given], "said_at": [b.said_at for b in given],
            "prompt_versions": [b.prov.prompt_version for b in given], "models": [b.prov.model for b in given],
            "agent_ids": [b.agent_id for b in given],
            "at": self.at, "run_id": self.run_id,
        })  # fmt: skip
        for row in rows:
            b = by_id[row["signal_id"]]
            self.touched[b.user_id].add(b.signal_id)
            # ended: a fact's end came; filled: a restatement gave a start, an end or a scope it lacked
            self.counts[b.user_id][Count.ENDED if row["status"] == "ended" else Count.FILLED] += 1

    async def _sync(self, syncs: list[_Sync]) -> None:
        """The mention counts of the signals that changed, and their events."""
        if not syncs:
            return
        after = {
            row["signal_id"]: row["snapshot"]
            for row in await self._rows("shared/sync_mentions", {"signal_ids": [s.signal_id for s in syncs]})
        }
        await self._events([
            (s.signal_id, s.user_id, "reinforce", "pipeline", s.prov, s.before, after[s.signal_id]) for s in syncs
        ])  # fmt: skip
        for s in syncs:
            if s.pending:  # counted as held_for_review or restated_pending: it stays pending
                continue
            self.touched[s.user_id].add(s.signal_id)  # an archived signal mentioned again comes back
            self.counts[s.user_id][Count.REINFORCED] += 1

    # the cap

    async def core_signals(self, user_ids: Sequence[str]) -> dict[str, tuple[list[CoreRow], list[OwnRow]]]:
        """By user: the active inferred core signals, oldest first (locked), and the user's own signals."""
        rows = await self._rows(
            "shard_writer/apply_cap_signals",
            {"user_ids": list(user_ids), **decay.query_params(self.settings, self.at)},
        )
        found: dict[str, tuple[list[CoreRow], list[OwnRow]]] = {u: ([], []) for u in user_ids}
        for r in rows:
            core, own = found[r["user_id"]]
            if r["origin"] == "inferred":
                core.append(CoreRow(r["signal_id"], r["content"], r["kind"], r["mention_count"], r["last_seen_at"],
                                    r["retention"], r["snapshot"], r["signal_id"] in self.touched[r["user_id"]]))  # fmt: skip
            else:
                own.append(OwnRow(r["content"], r["kind"]))
        return found

    async def merge(
        self, user_id: str, prov: Provenance, survivor: CoreRow, absorbed: Sequence[CoreRow], content: str
    ) -> None:
        """The reconciler's merge: the absorbed signals point at the survivor, which takes their evidence
        and the new text (unless another signal of the user already has that text)."""
        copied: list[Any] = []
        for row in absorbed:
            (result,) = await self._rows(
                "shard_writer/absorb_signal",
                {"signal_id": row.signal_id, "survivor_id": survivor.signal_id, "run_id": self.run_id},
            )
            copied.extend(result["copied"])
        normalized = normalize_content(content)
        clash = await self._rows(
            "shard_writer/find_signal_by_text", {"user_id": user_id, "normalized": normalized}
        )
        if not clash or clash[0]["signal_id"] == survivor.signal_id:
            await self._rows(
                "shared/rewrite_signal",
                {"signal_id": survivor.signal_id, "content": content, "normalized": normalized,
                 "kind": survivor.kind, "tier": "core", "embedding": None},
            )  # fmt: skip
        (after,) = await self._rows("shared/sync_mentions", {"signal_ids": [survivor.signal_id]})
        await self._events([(
            survivor.signal_id, user_id, "merge", "reconciler", prov,
            {"survivor": survivor.snapshot, "absorbed": [r.snapshot for r in absorbed]},
            {"survivor": after["snapshot"], "absorbed": [str(r.signal_id) for r in absorbed], "copied": copied},
        )])  # fmt: skip
        self.counts[user_id][Count.MERGED] += len(absorbed)

    async def demote(self, user_id: str, prov: Provenance, row: CoreRow, reason: str) -> None:
        """A core signal to contextual; `reason` says who decided (reconciler, cap_rule)."""
        (after,) = await self._rows("shared/set_tier", {"signal_id": row.signal_id, "tier": "contextual"})
        await self._events([
            (row.signal_id, user_id, "demote", "reconciler", prov, row.snapshot, {**after["snapshot"], "reason": reason})
        ])  # fmt: skip
        self.counts[user_id][Count.DEMOTED] += 1

    # the rest of the group's transaction

    async def summarize(self, summaries: Sequence[tuple[str, Provenance, str]]) -> None:
        """The extraction answers' summaries of exactly what was written (no separate summary call)."""
        if not summaries:
            return
        written = await self._rows(
            "shard_writer/apply_summaries",
            {
                "user_ids": [u for u, _p, _s in summaries],
                "summaries": [" ".join(s.split()) for _u, _p, s in summaries],
                "models": [p.model for _u, p, _s in summaries],
                "prompt_versions": [p.prompt_version for _u, p, _s in summaries],
                "run_id": self.run_id,
            },
        )
        for row in written:
            self.counts[row["user_id"]][Count.SUMMARIZED_INLINE] += 1

    async def close_out(self, users: Sequence[UserOutcome]) -> None:
        """What needs no answer: the quarantined candidates, the rejected actions (redacted), the watermarks
        past every message read (released set-aside messages among them are read again) and the users'
        failures resolved."""
        run_id = str(self.run_id)
        quarantined = (_quarantined(run_id, u.user_id, p, why) for u in users for p, why in u.quarantine)
        await copy_frame(self.conn, "ops.quarantine", frame("ops.quarantine", quarantined))
        rejected = (_rejected(run_id, u, r) for u in users for r in u.rejected)
        await copy_frame(self.conn, "ops.rejected_actions", frame("ops.rejected_actions", rejected))
        for u in users:
            if u.quarantine:
                self.counts[u.user_id][Count.QUARANTINED] += len(u.quarantine)
        last = [(u.user_id, m) for u in users for m in last_read(u.read)]
        if last:
            await self._rows(
                "shard_writer/advance_watermark",
                {"conversation_ids": [m.conversation_id for _u, m in last], "user_ids": [u for u, _m in last],
                 "message_ats": [m.created_at for _u, m in last], "message_ids": [m.message_id for _u, m in last],
                 "run_id": self.run_id},
            )  # fmt: skip
        read = [m for u in users for m in u.read]
        await self._rows(
            "shard_writer/mark_read_again",
            {"conversation_ids": [m.conversation_id for m in read], "message_ids": [m.message_id for m in read],
             "run_id": self.run_id},
        )  # fmt: skip
        await self._rows(
            "shared/resolve_failures", {"user_ids": [u.user_id for u in users], "run_id": self.run_id}
        )


def _quarantined(run_id: str, user_id: str, p: Proposal, reason: str) -> dict[str, Any]:
    """An ops.quarantine row, its texts redacted."""
    return {
        "run_id": run_id,
        "user_id": user_id,
        "content": redact(p.content),
        "kind": p.kind,
        "tier": p.tier,
        "evidence": _json(
            [
                {
                    "conversation_id": c.message.conversation_id,
                    "message_id": c.message.message_id,
                    "quote": redact(c.quote),
                }
                for c in p.evidence
            ]
        ),
        "reason": redact(reason),
    }


def _rejected(run_id: str, outcome: UserOutcome, r: Rejection) -> dict[str, Any]:
    """An ops.rejected_actions row, the action as written and the reason redacted."""
    return {
        "run_id": run_id,
        "user_id": outcome.user_id,
        "stage": r.stage,
        "action": _json(redact_value(r.written)),
        "messages": _json(
            [{"conversation_id": m.conversation_id, "message_id": m.message_id} for m in r.cites]
        ),
        "reason": redact(r.reason),
        "prompt_version": outcome.prov.prompt_version,
        "model": outcome.prov.model,
    }


def _found(row: dict[str, Any], prefix: str) -> _Signal | None:
    if row[f"{prefix}_id"] is None:
        return None
    return _Signal(
        row[f"{prefix}_id"], row[f"{prefix}_origin"], row[f"{prefix}_status"], row[f"{prefix}_snapshot"]
    )
