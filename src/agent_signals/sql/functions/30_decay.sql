-- The decay formula, the twin of src/agent_signals/core/decay.py: a signal's retention after days_since_last_seen
-- without a mention is exp(-days_since_last_seen / S), S = base_days * (1 + mention_boost * (mentions - 1)); a
-- contextual signal whose retention falls under archive_below is archived. Its constants come as one jsonb
-- value, `decay` (core/decay.py: Decay.sql_value), read here by name: the queries pass that value and name no
-- constant, so a new constant is a field of Decay and its use in this file.

-- S: the days after which a signal mentioned `mention_count` times keeps 1/e of its weight (a count under 1
-- counts as 1).
create or replace function signals.decay_scale(mention_count integer, decay jsonb) returns double precision
language sql immutable parallel safe as $$
    select (decay ->> 'base_days')::double precision
           * (1 + (decay ->> 'mention_boost')::double precision * (greatest(mention_count, 1) - 1))
$$;

-- The retention at `at` of a signal last seen at last_seen_at (seen after `at`: an age of 0).
create or replace function signals.retention(
    last_seen_at timestamptz,
    mention_count integer,
    at timestamptz,
    decay jsonb
) returns double precision
language sql immutable parallel safe as $$
    select exp(
        -greatest(extract(epoch from (at - last_seen_at)) / 86400.0, 0) / signals.decay_scale(mention_count, decay)
    )
$$;

-- The same with the constants given one by one, the configuration's defaults unless given (analysts' SQL, the
-- as-of reads). The value is built from the numbers' text (float8 to text to jsonb: each step immutable, and
-- exact), so that this one stays immutable and inlined too.
create or replace function signals.retention(
    last_seen_at timestamptz,
    mention_count integer,
    at timestamptz,
    base_days double precision default 30,
    mention_boost double precision default 0.5
) returns double precision
language sql immutable parallel safe as $$
    select signals.retention(
        last_seen_at, mention_count, at,
        ('{"base_days": ' || base_days || ', "mention_boost": ' || mention_boost || '}')::jsonb
    )
$$;

-- Whether a contextual signal of this retention is archived.
create or replace function signals.archives(retention double precision, decay jsonb) returns boolean
language sql immutable parallel safe as $$
    select retention < (decay ->> 'archive_below')::double precision
$$;

-- The formula's inverse: the age in days at which a signal mentioned `mention_count` times reaches the
-- archive threshold (null when nothing is ever archived).
create or replace function signals.archive_age_days(mention_count integer, decay jsonb) returns double precision
language sql immutable parallel safe as $$
    select signals.decay_scale(mention_count, decay)
           * ln(1 / nullif((decay ->> 'archive_below')::double precision, 0))
$$;

-- Whether a stored decay score is rewritten: the retention moved from it by at least the score step.
create or replace function signals.score_moved(stored double precision, retention double precision, decay jsonb)
returns boolean
language sql immutable parallel safe as $$
    select abs(stored - retention) >= (decay ->> 'score_step')::double precision
$$;

-- The active inferred contextual signals whose retention at `at` is under the threshold, at a cost of the due
-- rows plus one index probe per mention count in use. For one mention count the age at which a signal is due
-- is one number (signals.archive_age_days), so the due signals of that count are a range of last_seen_at,
-- read from signals_contextual_due_idx. The distinct counts are walked by a loose index scan, each count's
-- range read, and the retention tested exactly as the formula computes it: the same signals as a scan of the
-- whole table. The constants are a parameter (settings may change between runs): nothing stored depends on
-- them.
create or replace function signals.due_for_archive(at timestamptz, decay jsonb) returns setof uuid
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
        select m, at - make_interval(secs => least(signals.archive_age_days(m, decay), 1e6) * 86400.0)
                  + interval '1 second' as seen_before
        from counts
        where m is not null and (decay ->> 'archive_below')::double precision > 0
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
    where signals.archives(signals.retention(s.last_seen_at, s.mention_count, at, decay), decay)
$$;
