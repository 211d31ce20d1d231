-- Users whose summary does not describe their current active signals (or who have signals and no
-- summary, or a summary and no signals), whoever consumed the dirty marks (a `views refresh`, an
-- operator), the dirty users among them. One statement; signals.fingerprint stays the one definition.
with users as (
    select user_id from signals.signals where status = 'active'
    union
    select user_id from signals.summaries
)
select u.user_id, f.fingerprint
from users u
cross join lateral (select signals.fingerprint(u.user_id) as fingerprint) f
left join signals.summaries m on m.user_id = u.user_id
where m.fingerprint is distinct from f.fingerprint
