update signals.signals s
set tier = %(tier)s, updated_at = now()
where signal_id = %(signal_id)s and origin = 'inferred' and status = 'active'
returning to_jsonb(s) - 'embedding' as snapshot
