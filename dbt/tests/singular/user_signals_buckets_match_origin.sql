-- The manual bucket holds exactly the user's own signals; the other buckets are named after the tier.
select user_id, bucket, signal_id, origin, tier
from {{ ref('user_signals') }}
where {{ refresh_scope('user_id') }}
  and not ((bucket = 'manual' and origin = 'manual') or (origin = 'inferred' and bucket = tier))
