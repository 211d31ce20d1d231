"""One cache for what is read from a text: the screens and the quote matcher are pure functions of a text,
and a run's users share many texts (the same fact in many users' answers, summaries of the same signals,
a message cited by several candidates), so a process reads each distinct text once while it is among the
TEXTS it read last. Every such reading is decorated with `per_text`: one limit for all. Each cache holds its
texts and short answers (a reason, a redacted quote): a few MB for signals, tens of MB at most for messages
of a few KB; a reading whose answer grows with its text keeps fewer (text._folded)."""

from __future__ import annotations

from functools import lru_cache

TEXTS = 16_384  # distinct texts (or text and option) a process keeps each reading of

per_text = lru_cache(maxsize=TEXTS)
