-- A signal a reviewer names: by its whole id, whatever its status (signals.review_approve and review_reject
-- say why one that is not pending cannot be reviewed), or by the start of the id of a signal waiting for
-- review (signals_pending_idx). An exact prefix, never a pattern: stages/by_hand/reviews.py has refused anything but
-- hex digits and the id's dashes. At most two rows: more than one is a prefix too short.
select signal_id, user_id, status
from signals.signals
where %(signal_id)s::uuid is not null and signal_id = %(signal_id)s::uuid
union all
select signal_id, user_id, status
from signals.signals
where %(signal_id)s::uuid is null and status = 'pending' and starts_with(signal_id::text, %(prefix)s)
limit 2
