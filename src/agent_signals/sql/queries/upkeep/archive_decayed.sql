-- Archive the active inferred contextual signals whose retention fell under the threshold (kept and
-- queryable, out of the context views), each with an event. Returns how many. The due signals come from
-- signals.due_for_archive: an index range per mention count in use, not a scan of every signal;
-- `= any(array(...))` reads them once, then each by its primary key.
with archived as (
    update signals.signals s
    set status = 'archived',
        decay_score = signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(decay)s::jsonb),
        updated_at = now()
    where s.signal_id = any(array(select signals.due_for_archive(%(at)s, %(decay)s::jsonb)))
      and s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
    returning s.signal_id, s.user_id, to_jsonb(s) - 'embedding' as after
), logged as (
    insert into signals.events (signal_id, user_id, run_id, action, actor, after)
    select signal_id, user_id, %(run_id)s, 'archive', 'pipeline', after from archived
    returning 1
)
select count(*) from logged
