-- Two active signals of one user with the same normalized text (must be none).
select user_id, normalized, count(*) as copies
from {batch}
where status = 'active'
group by user_id, normalized
having count(*) > 1
