"""How many flagged user messages a window holds (the same filter a run reads through), counted before a
backfill starts so its progress bar knows the total."""

from __future__ import annotations

import psycopg

from agent_signals.store.source import Window
from agent_signals.store.sqlfiles import query


def flagged_messages(conn: psycopg.Connection, window: Window) -> int:
    """The messages a run over `window` would read, summed over its users."""
    rows = conn.execute(query("shared/scan_pending_users"), window.params).fetchall()
    return sum(row[1] for row in rows)
