select s.signal_id, s.tier, s.origin, s.kind, s.status, s.mention_count, s.last_seen_at, s.content,
       coalesce(
           jsonb_agg(jsonb_build_object('conversation_id', e.conversation_id, 'message_id', e.message_id,
                                        'quote', e.quote) order by e.message_at)
               filter (where e.signal_id is not null),
           '[]'::jsonb) as evidence,
       s.agent_id, s.valid_from, s.valid_to, s.first_seen_at
from signals.signals s
left join signals.evidence e on e.signal_id = s.signal_id
where s.user_id = %(user_id)s and (%(all)s or s.status = 'active')
group by s.signal_id
order by s.origin = 'manual' desc, s.tier = 'core' desc, s.last_seen_at desc, s.signal_id
