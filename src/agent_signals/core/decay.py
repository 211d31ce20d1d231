"""The decay formula (DESIGN.md, "Decay and summaries"), pure: a signal's retention after `age_days` without
a mention is exp(-age_days / S), S = base_days * (1 + mention_boost * (mentions - 1)); a contextual signal
whose retention falls under the archive threshold is archived; manual signals do not decay. The values come
from the settings (AGENT_SIGNALS_DECAY_BASE_DAYS, _DECAY_MENTION_BOOST, _ARCHIVE_BELOW). The SQL that decides
decay, the functions of sql/functions/30_decay.sql, is this formula's twin: every statement passes it the
constants as one value (Decay.sql_value), which those functions read by name. A new constant is a field here
and its use there; no query names it."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
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
        return cls(settings.run.decay_base_days, settings.run.decay_mention_boost, settings.run.archive_below)

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

    def sql_value(self) -> str:
        """The constants as the SQL functions read them: a JSON object of the fields and SCORE_STEP (each
        float written exactly: Python's shortest repr, which PostgreSQL reads back to the same double)."""
        return json.dumps({**asdict(self), "score_step": SCORE_STEP})

    def query_params(self, at: datetime) -> dict[str, object]:
        """The parameters of every statement that decides decay at `at`: the time and the constants."""
        return {"at": at, "decay": self.sql_value()}


def query_params(settings: Settings, at: datetime) -> dict[str, object]:
    """The decay parameters of the configured formula at `at`, as the SQL statements take them."""
    return Decay.of(settings).query_params(at)
