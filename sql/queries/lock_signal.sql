select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where signal_id = %(signal_id)s and user_id = %(user_id)s
for update
