-- What a run reads and what decides that a user's summary must be rebuilt.

-- The fingerprint of a user's profile (their active signals of no agent): what the summary describes.
create or replace function signals.fingerprint(p_user_id text) returns text
language sql stable as $$
    select md5(coalesce(string_agg(signal_id::text || ':' || origin || ':' || tier || ':' || kind || ':'
                                   || content, E'\n' order by signal_id), ''))
    from signals.signals
    where user_id = p_user_id and status = 'active' and agent_id is null
$$;

-- Users whose stored summary does not describe their current profile (or who have a profile and no summary,
-- or a summary and no profile): the one definition of "this summary must be rebuilt", read by the summarize
-- stage (summary_candidates.sql) and the idle check (pending_work.sql), whoever consumed the dirty marks. A
-- user whose only active signals are of one agent has no profile and so no summary to rebuild.
create or replace view signals.stale_summaries as
with users as (
    select user_id from signals.signals where status = 'active' and agent_id is null
    union
    select user_id from signals.summaries
)
select u.user_id, f.fingerprint
from users u
cross join lateral (select signals.fingerprint(u.user_id) as fingerprint) f
left join signals.summaries m on m.user_id = u.user_id
where m.fingerprint is distinct from f.fingerprint;

-- The messages a run may read: user-role messages of flagged conversations, created up to p_until (and
-- from p_since when set), of p_users when set, past their conversation's watermark unless the run ignores
-- watermarks (backfills, replays), created after the user's latest forget (ops.forgotten), not set aside;
-- plus released messages behind the watermark not read again yet. `waiting`: the user failed recently and
-- is not retried before a failure's retry_after (runs that honour watermarks only).
-- The one copy of this filter: the scan (scan_pending_users.sql), the load of a shard
-- (load_pending_messages.sql) and the idle check (pending_work.sql) all read it. A plain SQL function,
-- inlined by the planner: each conversation is still read from its watermark on through
-- messages_conversation_time_idx, so the cost follows the new messages, not the history.
create or replace function signals.messages_to_read(
    p_until timestamptz, p_since timestamptz, p_users text[], p_ignore_watermarks boolean
)
returns table (
    user_id text, conversation_id text, message_id text, content text, created_at timestamptz, waiting boolean
)
language sql stable as $$
select c.user_id, m.conversation_id, m.message_id, m.content, m.created_at,
       not p_ignore_watermarks and exists (
           select 1 from ops.failures r
           where r.user_id = c.user_id and r.resolved_at is null and r.retry_after > p_until
       ) as waiting
from source.conversations c
left join signals.watermarks w on w.conversation_id = c.conversation_id and not p_ignore_watermarks
left join (select user_id, max(at) as at from ops.forgotten group by user_id) f on f.user_id = c.user_id
cross join lateral (
    select m.conversation_id, m.message_id, m.content, m.created_at
    from source.messages m
    where m.conversation_id = c.conversation_id
      and (m.created_at, m.message_id) > (coalesce(w.last_message_at, '-infinity'), coalesce(w.last_message_id, ''))
      and m.created_at > coalesce(f.at, '-infinity')
      and m.created_at <= p_until
      and (p_since is null or m.created_at >= p_since)
      and m.role = 'user'
      and not exists (
          select 1 from ops.set_aside a
          where a.conversation_id = m.conversation_id and a.message_id = m.message_id and a.released_at is null
      )
    union all  -- from the (few) released rows: never a scan of the history behind the watermark
    select m.conversation_id, m.message_id, m.content, m.created_at
    from (
        select distinct a.message_id from ops.set_aside a
        where a.conversation_id = c.conversation_id and w.conversation_id is not null
          and a.released_at is not null and a.read_again_at is null
    ) released
    cross join lateral (
        select m.* from source.messages m
        where m.conversation_id = c.conversation_id and m.message_id = released.message_id
        offset 0
    ) m
    where (m.created_at, m.message_id) <= (w.last_message_at, w.last_message_id)
      and m.created_at > coalesce(f.at, '-infinity')
      and m.created_at <= p_until
      and (p_since is null or m.created_at >= p_since)
      and m.role = 'user'
      and not exists (
          select 1 from ops.set_aside a
          where a.conversation_id = m.conversation_id and a.message_id = m.message_id and a.released_at is null
      )
    offset 0
) m
where c.flagged
  and (p_users is null or c.user_id = any(p_users))
$$;

revoke execute on function signals.messages_to_read(timestamptz, timestamptz, text[], boolean) from public;
grant execute on function signals.messages_to_read(timestamptz, timestamptz, text[], boolean)
    to agent_signals_pipeline;

-- The users a run's table expectations read (queries/expectations/expect_*.sql): those its view refresh took
-- (ops.touched_users). Read once as an array, then every table is probed by its index on user_id.
create or replace function ops.run_users(p_run_id uuid) returns text[]
language sql stable parallel safe as $$
    select array(select t.user_id from ops.touched_users t where t.run_id = p_run_id)
$$;
