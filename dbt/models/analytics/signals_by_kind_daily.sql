-- Signals created per UTC day, by kind, (current) tier and origin: how many, and how many are still active.
-- Candidates held for review count from a reviewer's approval (their day is the day they were held): one
-- pending or rejected is not a signal learned.
select
    (created_at at time zone 'UTC')::date as day,
    kind,
    tier,
    origin,
    count(*)::integer as signals_created,
    (count(*) filter (where status = 'active'))::integer as still_active
from {{ ref('stg_signals') }}
where status not in ('pending', 'rejected')
group by 1, 2, 3, 4
