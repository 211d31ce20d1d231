-- The decay formula, the twin of src/agent_signals/core/decay.py: a signal's retention after
-- days_since_last_seen without a mention is exp(-days_since_last_seen / S), S = base_days * (1 + boost *
-- (mention_count - 1)).
create or replace function signals.retention(
    last_seen_at timestamptz,
    mention_count integer,
    at timestamptz,
    base_days double precision default 30,
    mention_boost double precision default 0.5
) returns double precision
language sql immutable parallel safe as $$
    select exp(
        -greatest(extract(epoch from (at - last_seen_at)) / 86400.0, 0)
        / (base_days * (1 + mention_boost * (greatest(mention_count, 1) - 1)))
    )
$$;

-- The active inferred contextual signals whose retention at `at` is under the threshold, at a cost of the due
-- rows plus one index probe per mention count in use. A contextual signal is due when its age passes
-- S * ln(1 / threshold) days (the formula's inverse): for one mention count that age is one number, so the
-- due signals of that count are a range of last_seen_at, read from signals_contextual_due_idx. The distinct
-- counts are walked by a loose index scan, each count's range read, and the retention tested exactly as the
-- formula computes it: the same signals as a scan of the whole table. The formula's values are parameters
-- (settings may change between runs): nothing stored depends on them.
create or replace function signals.due_for_archive(
    at timestamptz,
    base_days double precision,
    mention_boost double precision,
    threshold double precision
) returns setof uuid
language sql stable parallel safe as $$
    with recursive counts (m) as (
        select min(mention_count) from signals.signals
        where origin = 'inferred' and status = 'active' and tier = 'contextual'
        union all
        select (select min(s.mention_count) from signals.signals s
                where s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
                  and s.mention_count > c.m)
        from counts c
        where c.m is not null
    ), ranges as (
        -- for each count: last seen before `at` minus the age at which retention reaches the threshold
        -- (capped at a million days, a wider range, so that the subtraction stays a valid timestamp), plus
        -- a second of slack for rounding; the exact test follows
        select m, at - make_interval(secs => least(
                   base_days * (1 + mention_boost * (greatest(m, 1) - 1)) * ln(1 / nullif(threshold, 0)), 1e6
               ) * 86400.0) + interval '1 second' as seen_before
        from counts
        where m is not null and threshold > 0
    )
    select s.signal_id
    from ranges r
    cross join lateral (
        select s.signal_id, s.last_seen_at, s.mention_count
        from signals.signals s
        where s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
          and s.mention_count = r.m and s.last_seen_at <= r.seen_before
        offset 0  -- one index range per count (not flattened into a join that scans the table)
    ) s
    where signals.retention(s.last_seen_at, s.mention_count, at, base_days, mention_boost) < threshold
$$;
