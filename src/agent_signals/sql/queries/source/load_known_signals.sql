-- The active signals shown to the model for a shard of users: all of the user's own (manual) signals,
-- then inferred core, then the most recently seen contextual ones, at most %(limit)s inferred per user.
select user_id, signal_id, content, normalized, tier, kind, origin, agent_id, valid_to
from (
    select s.*,
           row_number() over (
               partition by s.user_id, s.origin
               order by s.tier = 'core' desc, s.last_seen_at desc, s.signal_id
           ) as rank
    from signals.signals s
    where s.user_id = any(%(user_ids)s) and s.status = 'active'
) ranked
where origin = 'manual' or rank <= %(limit)s
order by user_id, origin = 'manual' desc, tier = 'core' desc, last_seen_at desc, signal_id
