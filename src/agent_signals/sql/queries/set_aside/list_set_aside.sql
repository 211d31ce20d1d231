-- Set-aside messages, oldest first: those still held, or all of them (released ones too) with %(all)s.
select set_aside_id, user_id, conversation_id, message_id, attempts, reason, at, released_at, read_again_at
from ops.set_aside
where (%(user_id)s::text is null or user_id = %(user_id)s)
  and (%(all)s or released_at is null)
order by at, set_aside_id
