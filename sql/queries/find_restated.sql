-- The signal a candidate restates, in one round trip, first match wins:
--   1. the user's signal with the same normalized text, of either origin, not merged away (the user's
--      own, manual, first when both exist);
--   2. when the candidate's kind is exclusive (AGENT_SIGNALS_EXCLUSIVE_KINDS), the user's own active
--      signal of that kind;
--   3. the user's signal closest in meaning (any origin; active, archived or a tombstone) when its cosine
--      similarity reaches %(threshold)s. A user has few signals: the (user_id, status) index narrows, then
--      an exact sort.
-- %(exclude)s (or null) is the signal an update rewrites, never its own restatement.
with same as (
    select 1 as rank, signal_id, origin, status, null::float8 as similarity, to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where user_id = %(user_id)s and normalized = %(normalized)s and status <> 'merged'
      and signal_id is distinct from %(exclude)s
    order by origin = 'manual' desc
    limit 1
    for update
), own as (
    select 2 as rank, signal_id, origin, status, null::float8 as similarity,
           to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where %(exclusive)s and user_id = %(user_id)s and origin = 'manual' and status = 'active'
      and kind = %(kind)s
    limit 1
), near as (
    select 3 as rank, signal_id, origin, status, 1 - (embedding <=> %(embedding)s::vector) as similarity,
           to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where %(embedding)s::vector is not null and user_id = %(user_id)s and status <> 'merged'
      and embedding is not null and signal_id is distinct from %(exclude)s
    order by embedding <=> %(embedding)s::vector, origin = 'manual' desc
    limit 1
    for update
)
select signal_id, origin, status, similarity, snapshot
from (
    select * from same
    union all select * from own
    union all select * from near where similarity >= %(threshold)s
) found
order by rank
limit 1
