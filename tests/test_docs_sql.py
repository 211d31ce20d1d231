"""The SQL the documentation shows, run on a database after what it says came before (issue 33, point 6):
docs/analysts.md's "as of" examples return rows after the demo's seed and one run, as it promises. (Apart
from tests/test_docs.py, whose checks are all unit tests: this one needs PostgreSQL and a flow run.)"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from agent_signals.cli.demo.seeding import seed, seed_showcase
from agent_signals.flows.extract import extract_signals

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]

ROOT = Path(__file__).resolve().parents[1]
ANALYSTS = ROOT / "docs" / "analysts.md"
PROMISE = "Each query below returns rows after a fresh demo:"


def as_of_examples() -> list[str]:
    """The statements of the fenced block after PROMISE in analysts.md, comments dropped."""
    text = ANALYSTS.read_text()
    block = re.search(r"```sql\n(.*?)```", text[text.index(PROMISE) :], re.DOTALL)[1]
    statements = [
        "\n".join(line for line in part.splitlines() if not line.lstrip().startswith("--")).strip()
        for part in block.split(";\n")
    ]
    return [s for s in statements if s]


def test_the_as_of_examples_return_rows_after_the_demo(conn, settings):
    seed(conn, users=5)  # u000000 .. u000004, as `agent-signals demo` seeds them (it seeds 200)
    seed_showcase(conn)
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["status"] == "succeeded", summary
    examples = as_of_examples()
    assert len(examples) == 5 and all(
        "context.user_context_as_of('u000003'" in e or "c.user_id" in e for e in examples
    )
    for statement in examples:
        rows = conn.execute(statement).fetchall()
        assert rows, f"no rows: {statement}"
        assert any(row[-1] is not None for row in rows), f"no block: {statement}"  # a count, or the block now
    # why the page says so: the events carry the run's time, not the messages' (dated over the 35 days before)
    (first_message,) = conn.execute(
        "select min(created_at) from source.messages m join source.conversations c using (conversation_id) "
        "where c.user_id = 'u000003'"
    ).fetchone()
    assert not conn.execute(
        "select * from context.user_context_as_of('u000003', %s)", [first_message]
    ).fetchall()
    assert not conn.execute(
        "select * from context.user_context_as_of('u000003', now() - interval '1 day')"
    ).fetchall()
