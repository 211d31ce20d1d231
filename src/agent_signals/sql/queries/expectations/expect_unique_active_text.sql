-- Two active signals of a user this run touched with the same normalized text in one scope (must be none;
-- the same text may be the profile's and an agent's, or two agents').
select user_id, agent_id, normalized, count(*) as copies
from {batch}
where user_id = any(ops.run_users(%(run_id)s))
  and status = 'active'
group by user_id, agent_id, normalized
having count(*) > 1
