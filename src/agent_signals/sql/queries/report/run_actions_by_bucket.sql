-- What a run changed, by action and bucket, from its events (a signal held for review: bucket `pending`).
select e.action,
       case when e.after ->> 'origin' = 'manual' then 'manual'
            when e.after ->> 'status' = 'pending' then 'pending'
            else coalesce(e.after ->> 'tier', e.after -> 'survivor' ->> 'tier', '-') end as bucket,
       count(*) as events
from signals.events e
where e.run_id = %(run_id)s
group by 1, 2
order by 1, 2
