-- The active inferred signals of some users that cite a flagged message of the window (what a candidate
-- prompt replayed over the window is compared with), each with all the messages it cites.
select s.signal_id::text, s.user_id, s.content, s.kind, s.tier,
       array_agg(e.conversation_id order by e.conversation_id, e.message_id),
       array_agg(e.message_id order by e.conversation_id, e.message_id)
from signals.signals s
join signals.evidence e using (signal_id)
where s.user_id = any(%(user_ids)s) and s.origin = 'inferred' and s.status = 'active'
group by s.signal_id, s.user_id, s.content, s.kind, s.tier
having bool_or(e.message_at <= %(until)s and (%(since)s::timestamptz is null or e.message_at >= %(since)s))
order by s.user_id, s.content
