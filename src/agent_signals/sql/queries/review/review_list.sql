-- The signals waiting for review (status pending, m023), oldest first, of one user or of all: what a
-- reviewer decides on. Each with why it was held (redacted), the text of the version of a fact it would
-- replace (a held update: approving it ends that one), and its evidence (quotes redacted, as stored). The
-- queue is read through signals_pending_idx.
select s.signal_id, s.user_id, s.agent_id, s.kind, s.tier, s.content, s.review_reason, s.created_at,
       (select o.content from signals.signals o where o.signal_id = s.supersedes) as replaces,
       coalesce(
           jsonb_agg(jsonb_build_object('conversation_id', e.conversation_id, 'message_id', e.message_id,
                                        'quote', e.quote) order by e.message_at, e.conversation_id, e.message_id)
               filter (where e.signal_id is not null),
           '[]'::jsonb) as evidence
from signals.signals s
left join signals.evidence e on e.signal_id = s.signal_id
where s.status = 'pending' and (%(user_id)s::text is null or s.user_id = %(user_id)s)
group by s.signal_id
order by s.created_at, s.signal_id
