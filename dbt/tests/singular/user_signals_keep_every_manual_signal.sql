-- Every active manual signal of a covered user is in the view (the manual bucket has no limit).
select s.user_id, s.signal_id
from {{ ref('stg_signals') }} s
left join {{ ref('user_signals') }} v on v.signal_id = s.signal_id
where s.origin = 'manual' and s.status = 'active'
  and {{ refresh_scope('s.user_id') }}
  and v.signal_id is null
