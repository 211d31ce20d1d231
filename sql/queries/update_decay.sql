-- DESIGN.md's retention for every active inferred signal, in one set-based statement (manual signals do
-- not decay). Rows whose score moved by less than the score step (core/decay.py: SCORE_STEP) are left alone.
update signals.signals s
set decay_score = r.score
from (
    select signal_id, signals.retention(last_seen_at, mention_count, %(at)s, %(base_days)s, %(boost)s) as score
    from signals.signals
    where origin = 'inferred' and status = 'active'
) r
where s.signal_id = r.signal_id and abs(s.decay_score - r.score) >= %(score_step)s
