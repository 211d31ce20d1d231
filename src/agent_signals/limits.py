"""The limits every layer shares, in one place: Python validation reads them here, SQL through
signals.limit(name) (written from this module by `migrate`), dbt through its vars, prompts through the
renderer. Change one here and every reader follows."""

from __future__ import annotations

CORE_CAP = 20  # active inferred core signals per user after any commit
CONTEXTUAL_LIMIT = 50  # inferred contextual signals per user in the context views (the strongest by decay)
CONTENT_MAX_CHARS = 300  # a signal's text
QUOTE_MAX_CHARS = 500  # an evidence quote
SUMMARY_MAX_CHARS = 1200  # a user's summary paragraph

# What the prompts ask of the model, well inside the limits above (a model that overshoots a little still
# validates).
CONTENT_PROMPT_CHARS = 120  # "content: at most N characters"
SUMMARY_MAX_WORDS = 80  # "one paragraph of at most N words"


def by_name() -> dict[str, int]:
    """The limits SQL and dbt read, by the name they read them under (signals.limit(name), var(name))."""
    return {
        "core_cap": CORE_CAP,
        "contextual_limit": CONTEXTUAL_LIMIT,
        "content_max_chars": CONTENT_MAX_CHARS,
        "quote_max_chars": QUOTE_MAX_CHARS,
        "summary_max_chars": SUMMARY_MAX_CHARS,
    }


def prompt_values() -> dict[str, int]:
    """The limits the renderer fills into every prompt template, by template variable."""
    return {"content_chars": CONTENT_PROMPT_CHARS, "summary_words": SUMMARY_MAX_WORDS}
