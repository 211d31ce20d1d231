-- Released messages this user's successful extraction read: read again, not pending any more.
update ops.set_aside a
set read_again_at = now(), read_again_by_run = %(run_id)s
from unnest(%(conversation_ids)s::text[], %(message_ids)s::text[]) as t (conversation_id, message_id)
where a.conversation_id = t.conversation_id and a.message_id = t.message_id
  and a.released_at is not null and a.read_again_at is null
