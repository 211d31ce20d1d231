-- Users among the given ones whose active signal set changed since their summary (or who have none).
select d.user_id, signals.fingerprint(d.user_id) as fingerprint
from unnest(%(user_ids)s::text[]) as d(user_id)
left join signals.summaries m on m.user_id = d.user_id
where m.fingerprint is distinct from signals.fingerprint(d.user_id)
