-- Signals without their embedding (never read by the views) nor the normalised text.
select
    signal_id,
    user_id,
    content,
    kind,
    tier,
    origin,
    agent_id,
    status,
    valid_from,
    valid_to,
    supersedes,
    mention_count,
    first_seen_at,
    last_seen_at,
    decay_score,
    merged_into,
    created_at,
    updated_at
from {{ source('signals', 'signals') }}
