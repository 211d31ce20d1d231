-- New conversations are inserted; a changed flag, channel or agent is updated; an identical row is left alone.
with upserted as (
    insert into app.conversations as c (conversation_id, user_id, channel, agent_id, extract, flagged_at)
    select conversation_id, user_id, channel, agent_id, extract, case when extract then now() end
    from load_conversations
    on conflict (conversation_id) do update
        set channel = excluded.channel,
            agent_id = excluded.agent_id,
            extract = excluded.extract,
            flagged_at = case when excluded.extract and not c.extract then now()
                              when excluded.extract then c.flagged_at end
        where c.extract is distinct from excluded.extract or c.channel is distinct from excluded.channel
           or c.agent_id is distinct from excluded.agent_id
    returning (xmax = 0) as inserted
)
select count(*) filter (where inserted), count(*) filter (where not inserted) from upserted
