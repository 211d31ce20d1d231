-- The inferred signals an evaluation run stored (active or archived: decay is not judged here; ended: a fact
-- whose validity ended is still a fact extracted; merged ones are out, their evidence went to the survivor),
-- each with the messages it cites, its scope (agent_id null: the profile) and its validity.
select s.signal_id::text, s.user_id, s.content, s.kind, s.tier,
       array_agg(e.conversation_id order by e.conversation_id, e.message_id),
       array_agg(e.message_id order by e.conversation_id, e.message_id),
       s.agent_id, s.valid_from, s.valid_to
from signals.signals s
join signals.evidence e using (signal_id)
where s.origin = 'inferred' and s.status in ('active', 'archived', 'ended')
group by s.signal_id
order by s.user_id, s.content
