-- What a summary is written from (the profile: a summary is read by every agent): the user's own signals, their core, their 10 strongest contextual.
select bucket, kind, content
from (
    select case when origin = 'manual' then 'manual' else tier end as bucket, kind, content,
           row_number() over (partition by origin, tier order by decay_score desc, last_seen_at desc, signal_id) as rank,
           created_at
    from signals.signals
    where user_id = %(user_id)s and status = 'active' and agent_id is null  -- the profile
) s
where bucket <> 'contextual' or rank <= 10
order by bucket = 'manual' desc, bucket = 'core' desc, rank
