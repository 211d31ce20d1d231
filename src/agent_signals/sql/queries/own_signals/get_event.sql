select e.event_id, e.signal_id, e.user_id, e.action, e.actor, e.before, e.after,
       exists (select 1 from signals.events u
               where u.action = 'undo' and (u.after ->> 'undoes')::bigint = e.event_id) as undone
from signals.events e
where e.event_id = %(event_id)s
