-- Undo of a merge: the absorbed signal comes back as it was before the merge.
update signals.signals
set status = %(status)s, tier = %(tier)s, merged_into = null, updated_at = now()
where signal_id = %(signal_id)s and status = 'merged' and merged_into = %(survivor_id)s
