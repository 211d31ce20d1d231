"""The decay formula (DESIGN.md, "Decay and summaries"), pure: a signal's retention after `age_days` without
a mention is exp(-age_days / S), S = base_days * (1 + mention_boost * (mentions - 1)); a contextual signal
whose retention falls under the archive threshold is archived; manual signals do not decay. The values come
from the settings (AGENT_SIGNALS_DECAY_BASE_DAYS, _DECAY_MENTION_BOOST, _ARCHIVE_BELOW); the SQL that
decides decay (signals.retention, called by update_decay, archive_decayed, insert_signal, pending_work and
load_pending_messages) receives every one of them, and SCORE_STEP, as query parameters (query_params)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from agent_signals.config import Settings

DAY_SECONDS = 86400.0
SCORE_STEP = 1e-4  # update_decay rewrites a stored score only when it moved by at least this much


@dataclass(frozen=True)
class Decay:
    """The formula's constants, as configured."""

    base_days: float  # S of a signal mentioned once: its retention is 1/e after this many days
    mention_boost: float  # each mention after the first stretches S by this fraction of base_days
    archive_below: float  # a contextual signal whose retention falls under this is archived

    @classmethod
    def of(cls, settings: Settings) -> Decay:
        return cls(settings.decay_base_days, settings.decay_mention_boost, settings.archive_below)

    def scale_days(self, mentions: int) -> float:
        """S: the days after which a signal mentioned `mentions` times keeps 1/e of its weight (a count
        under 1 counts as 1)."""
        return self.base_days * (1 + self.mention_boost * (max(mentions, 1) - 1))

    def retention(self, age_days: float, mentions: int) -> float:
        """The retention of a signal last seen `age_days` ago (a negative age, seen after the reference
        time, counts as 0)."""
        return math.exp(-max(age_days, 0.0) / self.scale_days(mentions))

    def retention_at(self, last_seen_at: datetime, mentions: int, at: datetime) -> float:
        return self.retention((at - last_seen_at).total_seconds() / DAY_SECONDS, mentions)

    def archives(self, retention: float) -> bool:
        """Whether a contextual signal with this retention is archived (core and manual ones never are)."""
        return retention < self.archive_below

    def query_params(self, at: datetime) -> dict[str, object]:
        """The parameters of every statement that decides decay at `at`."""
        return {
            "at": at,
            "base_days": self.base_days,
            "boost": self.mention_boost,
            "threshold": self.archive_below,
            "score_step": SCORE_STEP,
        }


def query_params(settings: Settings, at: datetime) -> dict[str, object]:
    """The decay parameters of the configured formula at `at`, as the SQL statements take them."""
    return Decay.of(settings).query_params(at)
