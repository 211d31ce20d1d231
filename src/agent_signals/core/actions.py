"""The vocabulary of the write path: what a run counts (Count)."""

from __future__ import annotations

from enum import StrEnum


class Count(StrEnum):
    """What a run counts, the keys of its actions (RunStats.actions, ops.runs.actions). The values are stored
    and documented: a name is never changed, only added."""

    # what the write did with a candidate
    CREATED = "created"
    UPDATED = "updated"  # a fact changed: its new version written, the old one ended
    REINFORCED = "reinforced"  # a known signal restated: its evidence grew
    UNCHANGED = "unchanged"  # a restatement that cites no new message (a replay)
    FILLED = "filled"  # a restatement gave a known signal a start, an end or a scope it lacked
    ENDED = "ended"  # a fact stopped holding (an end, a created fact already over, or decay)
    ARCHIVED = "archived"  # too old to stay active (at creation, or by decay)
    HELD_FOR_REVIEW = "held_for_review"  # written pending: a reviewer decides
    RESTATED_PENDING = "restated_pending"  # a signal waiting for review restated: it stays pending
    SKIPPED_MANUAL = "skipped_manual"  # restates the user's own signal: the user's word wins
    SKIPPED_TOMBSTONE = "skipped_tombstone"  # restates a signal the user deleted
    SKIPPED_REJECTED = "skipped_rejected"  # restates a signal a reviewer rejected
    SKIPPED_HELD = "skipped_held"  # held for review, and restates a signal agents read: not written
    SKIPPED_END = "skipped_end"  # ends a signal no longer active (removed, merged or ended since the prompt)
    QUARANTINED = "quarantined"
    SUMMARIZED_INLINE = "summarized_inline"  # the answer's summary written with the signals
    # the core cap
    MERGED = "merged"
    DEMOTED = "demoted"
    RECONCILE_INVALID = "reconcile_invalid"
    RECONCILE_FAILED = "reconcile_failed"
    RECONCILE_STALE = "reconcile_stale"
    MERGE_REFUSED = "merge_refused"
    # validation, screening and the quality gate
    SKIPPED = "skipped"  # the model's own `skip`
    REJECTED_INVALID = "rejected_invalid"
    FIELDS_DROPPED = "fields_dropped"  # an optional field left out, the action kept
    SKIPPED_SENSITIVE = "skipped_sensitive"
    SKIPPED_SPECIAL = "skipped_special"
    SKIPPED_RECALL = "skipped_recall"
    SKIPPED_REVIEW = "skipped_review"  # held for review, rejected instead
    SUMMARY_REFUSED = "summary_refused"
    REJECTED_GATE = "rejected_gate"
    # the messages read
    MESSAGES_HIDDEN_TEXT = "messages_hidden_text"
    MESSAGES_CUT = "messages_cut"
    MESSAGES_SET_ASIDE = "messages_set_aside"
    # upkeep after the writes
    RETRACTED = "retracted"
    SUMMARIZED = "summarized"
    SUMMARY_REPLACED = "summary_replaced"
    SUMMARY_DROPPED = "summary_dropped"
    SLICES_ALREADY_DONE = "slices_already_done"
