"""The limits every layer shares, in one place: Python validation reads them here, SQL through
signals.limit(name) (written from this module by `migrate`), dbt through its vars, prompts through the
renderer. Change one here and every reader follows."""

from __future__ import annotations

CORE_CAP = 20  # active inferred core signals per user after any commit
CONTENT_MAX_CHARS = 300  # a signal's text
QUOTE_MAX_CHARS = 500  # an evidence quote
SUMMARY_MAX_CHARS = 1200  # a user's summary paragraph
