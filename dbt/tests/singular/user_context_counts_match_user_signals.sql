-- The counts of user_context agree with the profile rows of user_signals, and every user of user_signals has a
-- block (a user with only an agent's signals: an empty profile block).
with signal_counts as (
    select
        user_id,
        count(*) filter (where bucket = 'manual' and agent_id is null) as manual_count,
        count(*) filter (where bucket = 'core' and agent_id is null) as core_count,
        count(*) filter (where bucket = 'contextual' and agent_id is null) as contextual_count
    from {{ ref('user_signals') }}
    where {{ refresh_scope('user_id') }}
    group by user_id
)
select coalesce(s.user_id, c.user_id) as user_id
from signal_counts s
full join (
    select * from {{ ref('user_context') }} where {{ refresh_scope('user_id') }}
) c on c.user_id = s.user_id
where c.user_id is null
   or coalesce(s.manual_count, 0) <> c.manual_count
   or coalesce(s.core_count, 0) <> c.core_count
   or coalesce(s.contextual_count, 0) <> c.contextual_count
