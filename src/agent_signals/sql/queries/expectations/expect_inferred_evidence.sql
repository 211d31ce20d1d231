-- Inferred signals of the users this run touched without any evidence row (must be none; a candidate a
-- reviewer rejected is only a tombstone for its text, which needs none): an anti-join that
-- probes the evidence's primary key per signal (a `not in (subquery)` would read all the evidence). Written
-- with a join, GX leaves the alias of the batch to the query (without, it adds its own).
select s.signal_id
from {batch} s
left join signals.evidence e on e.signal_id = s.signal_id
where s.user_id = any(ops.run_users(%(run_id)s))
  and s.origin = 'inferred' and s.status not in ('merged', 'retracted', 'rejected')
  and e.signal_id is null
