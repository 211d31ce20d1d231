-- A user's active inferred core signals (with their retention now) and their own active signals, for the
-- write-time cap. Core rows come oldest first so prompt handles are stable.
select s.signal_id, s.origin, s.content, s.kind, s.mention_count, s.last_seen_at, s.first_seen_at,
       s.created_at, signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(base_days)s, %(boost)s) as retention,
       to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where s.user_id = %(user_id)s and s.status = 'active'
  and (s.origin = 'manual' or s.tier = 'core')
order by s.origin, s.first_seen_at, s.signal_id
for update
