-- The inferred signals an evaluation run stored (active or archived: decay is not judged here; merged
-- ones are out, their evidence went to the survivor), each with the messages it cites.
select s.signal_id::text, s.user_id, s.content, s.kind, s.tier,
       array_agg(e.conversation_id order by e.conversation_id, e.message_id),
       array_agg(e.message_id order by e.conversation_id, e.message_id)
from signals.signals s
join signals.evidence e using (signal_id)
where s.origin = 'inferred' and s.status in ('active', 'archived')
group by s.signal_id, s.user_id, s.content, s.kind, s.tier
order by s.user_id, s.content
