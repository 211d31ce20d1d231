-- The user with the most active signals, for the demo's printout.
select user_id
from signals.signals
where status = 'active'
group by user_id
order by count(*) desc, user_id
limit 1
