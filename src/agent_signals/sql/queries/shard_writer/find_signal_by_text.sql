-- The user's signal with this normalized text, of either origin, that is not merged away.
-- The user's own (manual) signal wins when both exist.
select signal_id, origin, status, to_jsonb(s) - 'embedding' as snapshot
from signals.signals s
where user_id = %(user_id)s and normalized = %(normalized)s and status <> 'merged'
order by origin = 'manual' desc
limit 1
for update
