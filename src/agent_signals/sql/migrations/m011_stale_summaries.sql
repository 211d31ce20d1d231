-- Users whose stored summary does not describe their current active signals (or who have active signals and
-- no summary, or a summary and no active signal), whoever consumed the dirty marks (a `views refresh`, an
-- operator). The one definition of "this summary must be rebuilt": the summarize stage reads it
-- (summary_candidates.sql) and so does the idle check (pending_work.sql). signals.fingerprint stays the one
-- definition of a user's signal set.
create view signals.stale_summaries as
with users as (
    select user_id from signals.signals where status = 'active'
    union
    select user_id from signals.summaries
)
select u.user_id, f.fingerprint
from users u
cross join lateral (select signals.fingerprint(u.user_id) as fingerprint) f
left join signals.summaries m on m.user_id = u.user_id
where m.fingerprint is distinct from f.fingerprint;
