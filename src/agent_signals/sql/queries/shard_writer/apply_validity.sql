-- The validity a round's actions give signals that exist, in one statement (validate.py decides the days).
-- `mode` per signal:
--   end:    an `end` action, or the old version of a fact an update changed: valid_to set;
--   fill:   a restatement that says when the fact began or ends fills what the signal lacks: valid_from when
--           it has none; valid_to when it has none, or when the restating message is at least as new as the
--           last that cited the signal (an old message replayed by a backfill never moves a newer end);
--   reopen: an ended fact stated again as holding, in a message from after its end: valid_to cleared.
-- A fill also narrows a profile fact to the agent its restatement is scoped to (`agent_id`, validated from
-- the cited messages), when every message that ever cited it is of that agent's conversations, it is
-- contextual, and that agent has no signal of the same text: what a backfill learns of a signal's scope.
-- A start after the end is dropped (not known). A signal whose valid_to has come (at %(at)s, the run's time)
-- is `ended`: out of the views, the cap and the prompts. Only the pipeline's own signals (inferred) change,
-- never the user's. Each changed signal gets an event (`end`, or `update` for a fill or reopen).
with given as (
    select *
    from unnest(%(signal_ids)s::uuid[], %(modes)s::text[], %(valid_from)s::timestamptz[],
                %(valid_to)s::timestamptz[], %(said_at)s::timestamptz[], %(prompt_versions)s::text[],
                %(models)s::text[], %(agent_ids)s::text[])
         as g (signal_id, mode, valid_from, valid_to, said_at, prompt_version, model, agent_id)
), planned as (
    select s.signal_id, s.user_id, g.mode, g.prompt_version, g.model, to_jsonb(s) - 'embedding' as before,
           case when v.valid_to is null or v.valid_from <= v.valid_to then v.valid_from end as valid_from,
           v.valid_to,
           case when g.mode = 'fill' and s.agent_id is null and g.agent_id is not null and s.tier = 'contextual'
                     and not exists (
                         select from signals.evidence e
                         join source.conversations c using (conversation_id)
                         where e.signal_id = s.signal_id and c.agent_id is distinct from g.agent_id)
                     and not exists (
                         select from signals.signals o
                         where o.user_id = s.user_id and o.origin = s.origin and o.agent_id = g.agent_id
                           and o.normalized = s.normalized and o.status <> 'merged')
                then g.agent_id else s.agent_id end as agent_id
    from given g
    join signals.signals s using (signal_id)
    cross join lateral (
        -- a restated fact held at least since the first message that stated it
        select coalesce(s.valid_from, least(g.valid_from, s.first_seen_at)) as valid_from,
               case g.mode
                   when 'end' then g.valid_to
                   when 'reopen' then null
                   else case when g.valid_to is not null and (s.valid_to is null or g.said_at >= s.last_seen_at)
                             then g.valid_to else s.valid_to end
               end as valid_to
    ) v
    where s.origin = 'inferred'
      and (s.status in ('active', 'archived') or (g.mode = 'reopen' and s.status = 'ended'))
    for update of s
), changed as (
    update signals.signals s
    set valid_from = p.valid_from,
        valid_to = p.valid_to,
        agent_id = p.agent_id,
        status = case when p.valid_to <= %(at)s then 'ended'
                      when s.status = 'ended' then 'active'
                      else s.status end,
        updated_at = now()
    from planned p
    where s.signal_id = p.signal_id
      and (p.valid_from is distinct from s.valid_from or p.valid_to is distinct from s.valid_to
           or p.agent_id is distinct from s.agent_id)
    returning s.signal_id, s.status, to_jsonb(s) - 'embedding' as after
), logged as (
    insert into signals.events (signal_id, user_id, run_id, action, actor, prompt_version, model, before, after)
    select c.signal_id, p.user_id, %(run_id)s, case when p.mode = 'end' then 'end' else 'update' end, 'pipeline',
           p.prompt_version, p.model, p.before, c.after
    from changed c join planned p using (signal_id)
)
select c.signal_id, c.status, p.mode from changed c join planned p using (signal_id)
