-- Release held messages (by id, by user, or every one): the next run reads them again, watermark or not.
update ops.set_aside
set released_at = now(), released_by = current_user
where released_at is null
  and (%(everything)s or set_aside_id = any(%(ids)s::bigint[]) or user_id = %(user_id)s)
returning set_aside_id, user_id, conversation_id, message_id
