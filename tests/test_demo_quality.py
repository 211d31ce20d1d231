"""The offline model on the labelled demo set, through the real flow: it finds the planted durable
self-statements and leaves the planted negatives alone."""

from __future__ import annotations

import asyncio

import pytest

from agent_signals.cli.demo.seeding import score, seed
from agent_signals.flows.extract import extract_signals

pytestmark = [pytest.mark.db, pytest.mark.flow, pytest.mark.usefixtures("prefect_harness")]

USERS = 60


def test_offline_model_finds_planted_statements_and_skips_the_negatives(conn, settings):
    seed(conn, users=USERS)
    summary = asyncio.run(extract_signals(kind="manual", settings=settings))
    assert summary["status"] == "succeeded" and summary["failures"] == 0

    result = score(conn, users=USERS)
    assert result.planted > 100
    assert result.precision >= 0.95, result
    assert result.recall >= 0.80, result
    for negative in ("task_context", "org_fact", "other_people", "hypothetical", "quoted"):
        assert result.wrong_by_category.get(negative, 0) == 0, result

    tiers = dict(
        conn.execute(
            "select tier, count(*) from signals.signals where origin = 'inferred' group by tier"
        ).fetchall()
    )
    assert tiers.get("core", 0) > 0 and tiers.get("contextual", 0) > 0
