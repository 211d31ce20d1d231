-- What a run committed, from what it left behind: the users it wrote events for or moved watermarks of
-- (a user with nothing to learn has no event), the conversations it moved watermarks of, its events by
-- action under the run's figure names (create -> created, reinforce -> reinforced, retract -> retracted; the
-- create of a signal held for review -> held_for_review), its failures (rows of ops.failures) and the
-- backfill slices it finished.
-- The row of an interrupted run is written from this: its in-memory figures also count users cut off.
with users as (
    select user_id from signals.events where run_id = %(run_id)s
    union
    select user_id from signals.watermarks where run_id = %(run_id)s
), actions as (
    select case when action = 'create' and after ->> 'status' = 'pending' then 'held_for_review'
                when right(action, 1) = 'e' then action || 'd' else action || 'ed' end as action,
           count(*) as n
    from signals.events
    where run_id = %(run_id)s
    group by 1
)
select (select count(*) from users) as users,
       (select count(*) from signals.watermarks where run_id = %(run_id)s) as conversations,
       coalesce((select jsonb_object_agg(action, n) from actions), '{}'::jsonb) as actions,
       (select count(*) from ops.failures where run_id = %(run_id)s) as failures,
       (select count(*) from ops.backfill_slices where run_id = %(run_id)s) as slices
