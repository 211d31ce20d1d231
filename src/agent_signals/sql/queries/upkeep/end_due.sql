-- End the pipeline's signals whose validity has come to its end by %(at)s, the run's time ("on parental
-- leave until March", read in April): `ended`, out of the context views, the cap and the prompts, with an
-- `end` event each; the trigger (m005) marks their users dirty, so this run's refresh takes the fact out of
-- their blocks. The due signals are one range of signals_valid_to_idx (m022), not a scan. Returns how many.
with ended as (
    update signals.signals s
    set status = 'ended', updated_at = now()
    where s.valid_to <= %(at)s and s.status in ('active', 'archived') and s.origin = 'inferred'
    returning s.signal_id, s.user_id, to_jsonb(s) - 'embedding' as after
), logged as (
    insert into signals.events (signal_id, user_id, run_id, action, actor, after)
    select signal_id, user_id, %(run_id)s, 'end', 'pipeline', after from ended
    returning 1
)
select count(*) from logged
