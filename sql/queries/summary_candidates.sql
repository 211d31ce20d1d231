-- Users whose summary does not describe their current active signals: the given (dirty) users and every
-- other user whose stored fingerprint differs from their signals' (or who has signals and no summary, or a
-- summary and no signals), whoever consumed the dirty marks (a `views refresh`, an operator). One
-- statement; signals.fingerprint stays the one definition of a fingerprint.
with users as (
    select unnest(%(user_ids)s::text[]) as user_id
    union
    select user_id from signals.signals where status = 'active'
    union
    select user_id from signals.summaries
)
select u.user_id, f.fingerprint
from users u
cross join lateral (select signals.fingerprint(u.user_id) as fingerprint) f
left join signals.summaries m on m.user_id = u.user_id
where m.fingerprint is distinct from f.fingerprint
