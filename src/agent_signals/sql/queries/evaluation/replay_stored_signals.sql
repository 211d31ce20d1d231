-- A user's active inferred signals that cite a message of the window, each with all the messages it cites,
-- its scope and its validity: what a replay compares, read before the candidate's proposals are applied and
-- again after. With %(set_aside)s (the read before) they are also set aside, as status 'merged', which no
-- rule of apply matches (find_restated.sql, the unique active text, the core cap all pass over merged
-- signals), so the candidate's proposals are applied as if the window had never been extracted while the
-- user's tombstones and own signals stay in force. Only ever inside a replay's transaction, which is always
-- rolled back (stages/apply_safely.py: _rehearsed).
with compared as (
    select s.signal_id, s.user_id, s.content, s.kind, s.tier, s.agent_id, s.valid_from, s.valid_to,
           array_agg(e.conversation_id order by e.conversation_id, e.message_id) as conversation_ids,
           array_agg(e.message_id order by e.conversation_id, e.message_id) as message_ids
    from signals.signals s
    join signals.evidence e using (signal_id)
    where s.user_id = %(user_id)s and s.origin = 'inferred' and s.status = 'active'
    group by s.signal_id
    having bool_or(e.message_at <= %(until)s and (%(since)s::timestamptz is null or e.message_at >= %(since)s))
), set_aside as (
    update signals.signals s set status = 'merged'
    from compared c
    where %(set_aside)s and s.signal_id = c.signal_id
)
select signal_id::text, user_id, content, kind, tier, conversation_ids, message_ids,
       agent_id, valid_from, valid_to
from compared
order by content
