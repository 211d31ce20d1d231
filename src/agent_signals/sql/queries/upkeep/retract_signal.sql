-- A signal with no evidence left is retracted (kept, with an event, out of the views); returns it. One held
-- for review (pending) is retracted too: nothing is left to review.
update signals.signals s
set status = 'retracted', updated_at = now()
where s.signal_id = %(signal_id)s and s.origin = 'inferred'
  and s.status in ('active', 'archived', 'ended', 'pending')
  and not exists (select 1 from signals.evidence e where e.signal_id = s.signal_id)
returning s.user_id, to_jsonb(s) - 'embedding' as snapshot
