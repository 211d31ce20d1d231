-- Undo of a merge: drop the evidence rows the merge copied onto the survivor (the absorbed keep theirs).
delete from signals.evidence e
using jsonb_array_elements(%(copied)s::jsonb) k
where e.signal_id = %(survivor_id)s and e.conversation_id = k ->> 0 and e.message_id = k ->> 1
