"""Property: whatever sequence of extraction answers, manual edits and deletions a user goes through, the
user's own signals change only through the user paths, the core cap holds after every commit, and no
deleted (tombstoned) inferred text comes back. Real apply code, real PostgreSQL; hypothesis drives."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import hypothesis
import psycopg
import pytest
from hypothesis import HealthCheck, Phase, event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from agent_signals.core.outcome import Provenance, UserOutcome
from agent_signals.core.prompting.answers import ReconcileAnswer
from agent_signals.core.prompting.extract_calls import KnownSignal, SourceMessage, UserMessages
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Cite, Proposal
from agent_signals.stages.apply import apply_user
from agent_signals.stages.by_hand import own_signals
from agent_signals_offline import reconcile
from agent_signals_offline.embed import embed

pytestmark = [pytest.mark.db]

TEXTS = [f"Owns the {noun} service" for noun in (
    "billing", "fraud", "search", "checkout", "flags", "payroll", "audit", "identity", "images", "email",
    "pricing", "tax", "warehouse", "inventory", "mobile", "release", "chaos", "costs", "survey", "access",
    "catalog", "video", "maps", "chat", "invoice", "consent", "sandbox", "quota", "ticket", "webhook",
)] + ["Prefers short answers", "Writes in British English", "Works as a data engineer"]  # fmt: skip

extraction = st.lists(
    st.tuples(
        st.integers(0, len(TEXTS) - 1), st.sampled_from(["core", "core", "core", "contextual"]), st.booleans()
    ),
    min_size=3,
    max_size=25,
    unique_by=lambda pick: pick[0],
)
operation = st.one_of(
    st.tuples(st.just("extract"), extraction, st.booleans()),
    st.tuples(st.just("extract"), extraction, st.booleans()),
    st.tuples(st.just("add"), st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.just("edit"), st.integers(0, 5), st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.just("delete"), st.integers(0, 60)),
    st.tuples(st.just("attack"), st.sampled_from(["content = 'Is the CEO'", "tier = 'contextual'", "status = 'merged'"])),
)  # fmt: skip


async def offline_decide(core, own, cap) -> ReconcileAnswer:
    return ReconcileAnswer.model_validate({"decisions": reconcile.decide(core, own, cap)})


async def _apply(url, settings, user, proposals, messages, use_model):
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        prov = Provenance(uuid.uuid4(), "extract/test", "test")
        outcome = UserOutcome(UserMessages(user, list(messages)), prov, proposals=list(proposals))
        return await apply_user(conn, settings, outcome, decide=offline_decide if use_model else None)


def known_signals(conn, user) -> list[KnownSignal]:
    rows = conn.execute(
        "select signal_id, content, normalized, tier, kind, origin from signals.signals "
        "where user_id = %s and status = 'active' and origin = 'inferred' order by signal_id",
        [user],
    ).fetchall()
    return [KnownSignal(*row) for row in rows]


def manual_rows(conn, user) -> dict:
    rows = conn.execute(
        "select signal_id, content, kind, status from signals.signals where user_id = %s and origin = 'manual'",
        [user],
    ).fetchall()
    return {r[0]: r[1:] for r in rows}


@hypothesis_settings(
    max_examples=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(operation, min_size=1, max_size=8))
def test_manual_untouched_cap_held_tombstones_stay_dead(database_url, settings, conn, ops):
    user = f"p-{uuid.uuid4().hex[:10]}"
    manual: dict = {}  # what the user paths have made of the user's own signals
    tombstones: set[str] = set()
    clock = datetime(2026, 3, 1, tzinfo=UTC)
    most_core = 0
    for step, op in enumerate(ops):
        if op[0] == "extract":
            _name, picks, use_model = op
            known = known_signals(conn, user)
            proposals, messages = [], []
            for i, (text_index, tier, as_update) in enumerate(picks):
                text = TEXTS[text_index]
                message = SourceMessage(
                    f"{user}-c{step}", f"{i:03d}", f"I say: {text}", clock + timedelta(minutes=i)
                )
                messages.append(message)
                target = known[i % len(known)] if as_update and known else None
                kind = "ownership" if text.startswith("Owns") else "communication"
                proposals.append(
                    Proposal("update" if target else "create", text, normalize_content(text), tier, kind,
                             (Cite(message, text),), target, tuple(embed(text, settings.model.embedding_dim)))
                )  # fmt: skip
            asyncio.run(_apply(database_url, settings, user, proposals, messages, use_model))
        elif op[0] == "add":
            signal_id = own_signals.add_signal(conn, settings, user, TEXTS[op[1]], "preference")
            manual[signal_id] = (TEXTS[op[1]], "preference", "active")
        elif op[0] == "edit" and manual:
            signal_id = sorted(manual)[op[1] % len(manual)]
            if manual[signal_id][2] == "active":
                try:
                    own_signals.edit_signal(conn, settings, user, signal_id, TEXTS[op[2]], None)
                    manual[signal_id] = (TEXTS[op[2]], manual[signal_id][1], "active")
                except Exception as exc:  # the same text as another of the user's own: refused, unchanged
                    assert "already has a signal with this text" in str(exc)
        elif op[0] == "delete":
            rows = conn.execute(
                "select signal_id, origin, normalized from signals.signals where user_id = %s "
                "and status in ('active', 'archived') order by signal_id",
                [user],
            ).fetchall()
            if rows:
                signal_id, origin, normalized = rows[op[1] % len(rows)]
                own_signals.delete_signal(conn, settings, user, signal_id)
                if origin == "manual":
                    manual[signal_id] = (*manual[signal_id][:2], "deleted")
                else:
                    tombstones.add(normalized)
        elif op[0] == "attack" and manual:  # the pipeline's own connection, raw SQL
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(
                    f"update signals.signals set {op[1]} where user_id = %s and origin = 'manual'", [user]
                )
        clock += timedelta(days=1)

        assert manual_rows(conn, user) == manual
        core = conn.execute(
            "select count(*) from signals.signals where user_id = %s and origin = 'inferred' "
            "and tier = 'core' and status = 'active'",
            [user],
        ).fetchone()[0]
        assert core <= 20
        most_core = max(most_core, core)
        back = conn.execute(
            "select normalized from signals.signals where user_id = %s and origin = 'inferred' "
            "and status = 'active' and normalized = any(%s)",
            [user, list(tombstones)],
        ).fetchall()
        assert back == []
    hypothesis.target(float(most_core), label="most active core signals")
    event("reached the cap" if most_core == 20 else "under the cap")
