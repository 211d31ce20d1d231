-- The mentions of the given signals, in one statement: mention_count is the number of distinct messages
-- citing the signal, so a replayed message never counts twice; an archived signal that is mentioned again
-- comes back. Returns each signal's snapshot after.
update signals.signals s
set mention_count = e.mentions,
    first_seen_at = least(s.first_seen_at, e.first_at),
    last_seen_at = greatest(s.last_seen_at, e.last_at),
    status = case when s.status = 'archived' then 'active' else s.status end,
    updated_at = now()
from (
    select signal_id, count(*) as mentions, min(message_at) as first_at, max(message_at) as last_at
    from signals.evidence
    where signal_id = any(%(signal_ids)s::uuid[])
    group by signal_id
) e
where s.signal_id = e.signal_id
returning s.signal_id, to_jsonb(s) - 'embedding' as snapshot
