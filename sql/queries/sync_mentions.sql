-- mention_count is the number of distinct messages citing the signal, so a replayed message never
-- counts twice; an archived signal that is mentioned again comes back.
update signals.signals s
set mention_count = e.mentions,
    first_seen_at = least(s.first_seen_at, e.first_at),
    last_seen_at = greatest(s.last_seen_at, e.last_at),
    status = case when s.status = 'archived' then 'active' else s.status end,
    updated_at = now()
from (
    select count(*) as mentions, min(message_at) as first_at, max(message_at) as last_at
    from signals.evidence
    where signal_id = %(signal_id)s
) e
where s.signal_id = %(signal_id)s
returning to_jsonb(s) - 'embedding' as snapshot
