"""The decay stage, at the run's time: the inferred signals whose validity has ended (valid_to at or before
it: m022) ended, the contextual inferred signals whose retention fell under the archive threshold archived (kept and queryable, out of the context views; an `archive` event each), then the decay
scores of the dirty users' active inferred signals rewritten (the formula of core/decay.py).

Its cost follows the signals due and the users touched, not the table:

- Archiving reads only the due signals. Retention falls with time for a fixed (last_seen_at, mentions), so
  a contextual signal is due once its age passes S * ln(1 / threshold) days: for each mention count in use
  that is one range of last_seen_at, read from a partial index (signals.due_for_archive,
  sql/functions/30_decay.sql). The retention is then tested exactly as before, at the run's time: the same
  signals are archived at the same run as by the scan of every signal it replaces.
- Scores are rewritten only where they are read: the views and the summaries order a user's inferred
  signals by decay_score, and they rebuild only the users marked dirty (signals.dirty_users: this run's
  writes, the archives just made, the user paths). Those users are scored here, and a user marked after
  this stage is scored when the refresh takes them (store/upkeep.take_dirty_users). Every other user's
  scores stay those of the run that last rebuilt their rows, which is what their rows show: decay_score is
  the retention at the last run that rebuilt the user, not at the last run.
"""

from __future__ import annotations

from agent_signals.core import decay as formula
from agent_signals.core.actions import Count
from agent_signals.stages.run.context import RunContext, stage
from agent_signals.store import upkeep


@stage("decay")
async def decay(ctx: RunContext) -> int:
    """End the signals whose validity has ended by the run's time, archive the contextual signals due at
    it, then score the dirty users' active inferred signals (all in one transaction). Returns how many were
    archived."""
    params = {**formula.query_params(ctx.settings, ctx.until), "run_id": ctx.run_id}
    async with ctx.pool.connection() as conn:
        ended, archived = await upkeep.decay(conn, params)
    if ended:
        ctx.stats.actions[Count.ENDED] += ended
    if archived:
        ctx.stats.actions[Count.ARCHIVED] += archived
    return archived
