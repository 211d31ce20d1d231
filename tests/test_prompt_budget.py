"""No prompt exceeds AGENT_SIGNALS_MAX_PROMPT_TOKENS (by litellm's count): a message too large for a prompt is
cut to the part that fits, the run records the cut, and what the user said at its start is still learned."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from uuid import uuid4

import litellm
import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.extract_calls import KnownSignal, SourceMessage, UserMessages, build_calls
from agent_signals.flows.extract import extract_signals
from tests.builders import conversation, load_conversations
from tests.fakes import SCRIPTED_MODEL


def log_lines(size: int) -> str:
    """`size` characters of pasted service log (no statement about anyone)."""
    lines = (f"2026-03-0{i % 9 + 1}T10:{i % 60:02d}:07Z INFO req={i:08x} GET /api/v1/items/{i * 7919 % 100003} "
             f"status=200 bytes={i * 31 % 9000} took={i % 97}ms\n" for i in range(size // 40 + 1))  # fmt: skip
    return "".join(lines)[:size]


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_no_prompt_exceeds_the_budget_and_a_cut_message_is_recorded_and_still_read(conn, settings, scripted):
    huge = "I'm a site reliability engineer. Here is the log:\n" + log_lines(1_000_000)
    large = "I'm on the payments team. Trace follows.\n" + log_lines(60_000)
    load_conversations(
        conn,
        settings,
        conversation("h1", "hana", [("user", huge)]),
        conversation(
            "m1", "milo", [("user", "Hello."), ("user", large), ("user", "I prefer short answers.")]
        ),
        conversation("n1", "nora", [("user", "I work as a product designer.")]),
    )
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))

    budget = settings.model.max_prompt_tokens
    sizes = [litellm.token_counter(model=SCRIPTED_MODEL, messages=p) for p in scripted.extraction_calls]
    assert sizes and max(sizes) <= budget, sizes
    assert summary["actions"]["messages_cut"] == 2 and summary["failures"] == 0
    actions, warnings = conn.execute(
        "select actions, warnings from ops.runs where run_id = %s", (summary["run_id"],)
    ).fetchone()
    assert actions["messages_cut"] == 2
    assert sorted(w.split(":")[0] for w in warnings) == [
        "message 00001 of conversation h1 (user hana)", "message 00002 of conversation m1 (user milo)"
    ]  # fmt: skip
    rows = conn.execute("select user_id, string_agg(content, ' | ') from signals.signals group by user_id")
    learned = dict(rows.fetchall())
    assert "reliability engineer" in learned["hana"].lower()
    assert "payments" in learned["milo"].lower() and "short answers" in learned["milo"].lower()
    assert "product designer" in learned["nora"].lower()
    assert conn.execute(  # the quotes of a cut message are quotes of the stored text (cleaned)
        "select bool_and(strpos(signals.clean_text(m.content), e.quote) > 0) from signals.evidence e "
        "join source.messages m using (conversation_id, message_id)"
    ).fetchone() == (True,)


@pytest.mark.unit
@pytest.mark.parametrize("version", ["v1", "v2"])  # v2 shows each message's date: a longer line per message
@pytest.mark.parametrize("budget", [1000, 6000])
def test_the_budget_covers_instructions_known_signals_and_messages(budget, version):
    settings = Settings(max_prompt_tokens=budget, model=SCRIPTED_MODEL, prompt_version=version)
    known = [
        KnownSignal(uuid4(), f"Owns the service number {i} " + "and its on-call rota " * 10, "x", "core", "ownership",
                    "manual")
        for i in range(300)
    ]  # fmt: skip
    at = datetime.now(UTC)
    messages = [SourceMessage("c1", f"{i:05d}", text, at) for i, text in
                enumerate(["I'm a pilot.", "😀<>&" * 5000, log_lines(30_000), "I ski."])]  # fmt: skip
    calls = build_calls(UserMessages("u1", messages, known), settings, at.date())
    for call in calls:
        assert litellm.token_counter(model=SCRIPTED_MODEL, messages=call.prompt) == call.tokens <= budget
        for handle, shown in call.messages.items():
            stored = messages[int(shown.message_id)].content
            tag = (
                f'<m id="{handle}" date="{at.date().isoformat()}">'
                if version == "v2"
                else f'<m id="{handle}">'
            )
            assert stored.startswith(shown.content) and tag in call.prompt[1]["content"]
    assert [c.message.message_id for call in calls for c in call.cut] == ["00001", "00002"]
    read = [m.message_id for call in calls for m in call.messages.values()]
    assert read == ["00000", "00001", "00002", "00003"]  # every message, in order
    assert 0 < len(calls[0].signals) < len(known)  # known signals take at most half of the room
