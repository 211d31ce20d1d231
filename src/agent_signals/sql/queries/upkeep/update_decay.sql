-- DESIGN.md's retention at the run's time for the active inferred signals of the users marked dirty (their
-- signals changed since the views last rebuilt them: this run's writes and archives, the user paths): the
-- users whose summary and rows of the views are rebuilt next, ordered by this score. Other users' scores
-- stay those of the run that last rebuilt them, which is what their rows of the views show (docs/pipeline.md,
-- "decay"). Manual signals do not decay. Rows whose score moved by less than the score step
-- (signals.score_moved) are left alone.
update signals.signals s
set decay_score = signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(decay)s::jsonb)
where s.user_id = any(array(select d.user_id from signals.dirty_users d))
  and s.origin = 'inferred' and s.status = 'active'
  and signals.score_moved(
      s.decay_score, signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(decay)s::jsonb), %(decay)s::jsonb
  )
