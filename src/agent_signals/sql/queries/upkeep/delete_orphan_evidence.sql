-- Evidence from conversations that no longer exist in the source: removed. Returns the signals it
-- belonged to, which are then retracted (no evidence left) or recounted.
delete from signals.evidence e
where not exists (select 1 from source.conversations c where c.conversation_id = e.conversation_id)
returning e.signal_id
