-- What each staged candidate (one per user: a round of store/shard_writer.py) restates or updates, in one
-- statement, against the signals as they are now, with these rules, first match wins:
--   target: the signal an update names (locked), when it is still the user's;
--   same:   the user's signal with the same normalized text, of either origin, not merged away (the
--           user's own, manual, first when both exist; then the candidate's own scope's);
--   own:    when the candidate's kind is exclusive, the user's own active signal of that kind;
--   near:   the user's signal closest in meaning (any origin; active, archived or a tombstone) when its
--           cosine similarity reaches %(threshold)s.
-- The lookups read the candidate's scope and the profile (a candidate of the profile: the profile only):
-- a profile fact already covers every agent, and a profile tombstone is never learned again for one.
-- An update whose target is still the user's active inferred signal never restates that signal itself
-- (`exclude`). The caller takes the first of same, own, near.
with c as (delete from staging.apply_candidates where batch = %(write_key)s returning *)
select c.seq,
       t.signal_id as target_id, t.origin as target_origin, t.status as target_status,
       t.snapshot as target_snapshot,
       same.signal_id as same_id, same.origin as same_origin, same.status as same_status,
       same.snapshot as same_snapshot,
       own.signal_id as own_id, own.origin as own_origin, own.status as own_status,
       own.snapshot as own_snapshot,
       near.signal_id as near_id, near.origin as near_origin, near.status as near_status,
       near.snapshot as near_snapshot
from c
left join lateral (
    select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where c.target is not null and s.signal_id = c.target and s.user_id = c.user_id
    for update
) t on true
cross join lateral (
    select case when t.origin = 'inferred' and t.status = 'active' then t.signal_id end as exclude
) x
left join lateral (
    select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where s.user_id = c.user_id and s.normalized = c.normalized and s.status <> 'merged'
      and (s.agent_id is null or s.agent_id = c.agent_id)
      and s.signal_id is distinct from x.exclude
    order by s.origin = 'manual' desc, s.agent_id is null
    limit 1
    for update
) same on true
left join lateral (
    select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
    from signals.signals s
    where c.exclusive and s.user_id = c.user_id and s.origin = 'manual' and s.status = 'active'
      and s.kind = c.kind and (s.agent_id is null or s.agent_id = c.agent_id)
    limit 1
) own on true
left join lateral (
    select signal_id, origin, status, snapshot
    from (
        select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot,
               1 - (s.embedding <=> c.embedding) as similarity
        from signals.signals s
        where c.embedding is not null and s.user_id = c.user_id and s.status <> 'merged'
          and (s.agent_id is null or s.agent_id = c.agent_id)
          and s.embedding is not null and s.signal_id is distinct from x.exclude
        order by s.embedding <=> c.embedding, s.origin = 'manual' desc
        limit 1
        for update
    ) nearest
    where similarity >= %(threshold)s
) near on true
order by c.seq
