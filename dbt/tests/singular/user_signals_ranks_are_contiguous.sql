-- Within each (user, scope, bucket) the ranks are exactly 1..n.
select user_id, agent_id, bucket, min(rank) as first_rank, max(rank) as last_rank, count(*) as n
from {{ ref('user_signals') }}
where {{ refresh_scope('user_id') }}
group by user_id, agent_id, bucket
having min(rank) <> 1 or max(rank) <> count(*)
