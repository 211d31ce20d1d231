-- Why a user has no row in the context view `agent-signals context` read (context.user_context, or
-- context.agent_context for %(agent_id)s): the facts its error and hint are chosen from
-- (store/context_views.py, explain_missing). One user's rows, through the indexes on user_id.
with readable as (  -- what a run would read of the user now: signals.messages_to_read, the scan's filter
    select count(*) filter (where not waiting) as pending, count(*) filter (where waiting) as waiting
    from signals.messages_to_read(now(), null::timestamptz, array[%(user_id)s]::text[], false)
)
select
    (select count(*) from source.conversations where user_id = %(user_id)s) as conversations,
    (select count(*) from source.conversations where user_id = %(user_id)s and flagged) as flagged,
    exists (select 1 from signals.signals where user_id = %(user_id)s) as any_signals,
    (select count(*) from signals.signals where user_id = %(user_id)s and status = 'active') as active_signals,
    (select max(at) from ops.forgotten where user_id = %(user_id)s) as forgotten_at,
    readable.pending,
    readable.waiting,
    (select max(retry_after) from ops.failures
     where user_id = %(user_id)s and resolved_at is null and retry_after > now()) as retry_after,
    (select count(*) from ops.set_aside where user_id = %(user_id)s and released_at is null) as set_aside,
    array(
        select agent_id from source.conversations where user_id = %(user_id)s and agent_id is not null
        union
        select agent_id from signals.signals where user_id = %(user_id)s and agent_id is not null
        order by 1
    ) as agents,
    %(agent_id)s::text is not null and (
        exists (select 1 from source.conversations where agent_id = %(agent_id)s)
        or exists (select 1 from signals.signals where agent_id = %(agent_id)s)
    ) as agent_known
from readable
