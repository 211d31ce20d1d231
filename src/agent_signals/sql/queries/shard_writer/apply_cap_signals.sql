-- The active inferred core signals (with their retention now) and the own active signals of the given
-- users, for the write-time cap, locked. Core rows come oldest first within a user so prompt handles are
-- stable.
select s.user_id, s.signal_id, s.origin, s.content, s.kind, s.mention_count, s.last_seen_at, s.first_seen_at,
       s.created_at, signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(decay)s::jsonb) as retention,
       to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where s.user_id = any(%(user_ids)s::text[]) and s.status = 'active'
  and (s.origin = 'manual' or s.tier = 'core')
order by s.user_id, s.origin, s.first_seen_at, s.signal_id
for update
