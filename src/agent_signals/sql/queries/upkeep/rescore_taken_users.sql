-- The decay score at the run's time (ops.runs.window_end, the `at` of its decay stage) of the active inferred
-- signals of the users this run's refresh rebuilds (ops.touched_users), just taken: those marked dirty after
-- the decay stage (a user's own change meanwhile) are ordered in the views as of this run too. Users already
-- scored by update_decay.sql are only read. Rows whose score moved by less than the score step are left alone.
update signals.signals s
set decay_score = signals.retention(s.last_seen_at, s.mention_count, r.at, %(decay)s::jsonb)
from (select coalesce(window_end, now()) as at from ops.runs where run_id = %(run_id)s) r
where s.user_id = any(array(select t.user_id from ops.touched_users t where t.run_id = %(run_id)s))
  and s.origin = 'inferred' and s.status = 'active'
  and signals.score_moved(
      s.decay_score, signals.retention(s.last_seen_at, s.mention_count, r.at, %(decay)s::jsonb), %(decay)s::jsonb
  )
