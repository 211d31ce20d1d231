-- Decay whose cost follows the signals due, not the table (issue 19, point 5).
--
-- A contextual signal is archived when signals.retention(last_seen_at, mention_count, at, base, boost)
-- falls under the threshold, that is when its age passes S * ln(1 / threshold) days, S = base * (1 + boost *
-- (greatest(mention_count, 1) - 1)). For one mention count that age is one number: the due signals of that
-- count are a range of last_seen_at, read from the index below. signals.due_for_archive walks the distinct
-- mention counts of the active contextual signals (a loose index scan: one probe per count in use), reads
-- each count's range, and keeps those whose retention, computed exactly as before, is under the threshold:
-- the same signals as the scan of the whole table, at a cost of the due rows plus one probe per count.
-- The formula's values stay query parameters (settings may change between runs): nothing stored depends
-- on them.

create index signals_contextual_due_idx on signals.signals (mention_count, last_seen_at)
    where origin = 'inferred' and status = 'active' and tier = 'contextual';

create function signals.due_for_archive(
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

-- The users a run's table expectations read (sql/queries/expect_*.sql): those its view refresh took
-- (ops.touched_users), the users whose signals changed since the last refresh, whoever changed them. Read
-- once as an array, then every table is probed by its index on user_id.
create function ops.run_users(p_run_id uuid) returns text[]
language sql stable parallel safe as $$
    select array(select t.user_id from ops.touched_users t where t.run_id = p_run_id)
$$;
