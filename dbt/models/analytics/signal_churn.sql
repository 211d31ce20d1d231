-- One row per user with events: how their signals changed over time.
select
    user_id,
    (count(*) filter (where action = 'create'))::integer as creates,
    (count(*) filter (where action = 'reinforce'))::integer as reinforces,
    (count(*) filter (where action = 'update'))::integer as updates,
    (count(*) filter (where action = 'merge'))::integer as merges,
    (count(*) filter (where action = 'demote'))::integer as demotes,
    (count(*) filter (where action = 'delete'))::integer as deletes,
    (count(*) filter (where action = 'archive'))::integer as archives,
    (count(*) filter (where action = 'edit'))::integer as edits,
    (count(*) filter (where actor = 'user'))::integer as user_events,
    count(*)::integer as events,
    max(at) as last_event_at
from {{ ref('stg_events') }}
group by user_id
