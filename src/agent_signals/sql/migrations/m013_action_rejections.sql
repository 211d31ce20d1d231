-- Each action of an answer judged on its own, failing users retried with growing backoff, then the messages
-- their failing calls read set aside (issue 15, points 6 and 7); one definition of the messages a run reads.

-- ---------------------------------------------------------------------------------------------------
-- A failure says which messages the failing call read, whether it counts against the user (an answer or an
-- error caused by that user's messages; a transient fault of the model or the database does not), and, when
-- it counts, when the user may be tried again. `embed` joins the stages (embed_safely records it).
alter table ops.failures
    add column counted boolean not null default false,
    add column messages jsonb not null default '[]'::jsonb,  -- [{conversation_id, message_id}]
    add column retry_after timestamptz;
alter table ops.failures drop constraint failures_stage_check;
alter table ops.failures add constraint failures_stage_check
    check (stage in ('extract', 'validate', 'embed', 'apply'));
create index failures_retry_idx on ops.failures (user_id, retry_after)
    where resolved_at is null and retry_after is not null;

-- An action of a parsed answer that was not written: it failed validation, screening or the quality gate.
-- The user's other actions were applied and their messages consumed. Every text is redacted
-- (screen.redact) before it is stored.
create table ops.rejected_actions (
    rejection_id    bigint generated always as identity primary key,
    run_id          uuid not null references ops.runs (run_id),
    user_id         text not null,
    stage           text not null check (stage in ('validate', 'screen', 'gate')),
    action          jsonb not null,   -- the action as the model wrote it, every string redacted
    messages        jsonb not null,   -- the messages its evidence named: [{conversation_id, message_id}]
    reason          text not null,
    prompt_version  text not null,
    model           text not null,
    at              timestamptz not null default now()
);
create index rejected_actions_run_idx on ops.rejected_actions (run_id);
create index rejected_actions_user_idx on ops.rejected_actions (user_id);

-- Messages no run reads until an operator releases them (`agent-signals set-aside release`): those read by
-- each of a user's last AGENT_SIGNALS_FAILING_USER_ATTEMPTS failed calls. A released message is read again
-- by the next run, even behind its conversation's watermark, until an extraction that reads it succeeds
-- (read_again_at).
create table ops.set_aside (
    set_aside_id       bigint generated always as identity primary key,
    user_id            text not null,
    conversation_id    text not null,
    message_id         text not null,
    attempts           integer not null,
    reason             text not null,   -- the last failure: stage, kind and message, redacted
    run_id             uuid not null references ops.runs (run_id),
    at                 timestamptz not null default now(),
    released_at        timestamptz,
    released_by        text,
    read_again_at      timestamptz,
    read_again_by_run  uuid
);
create unique index set_aside_held_idx on ops.set_aside (conversation_id, message_id) where released_at is null;
create index set_aside_released_idx on ops.set_aside (conversation_id, message_id)
    where released_at is not null and read_again_at is null;
create index set_aside_user_idx on ops.set_aside (user_id);

grant select, insert, update on ops.rejected_actions, ops.set_aside to agent_signals_pipeline;
grant usage on all sequences in schema ops to agent_signals_pipeline;
grant select, delete on ops.rejected_actions, ops.set_aside to agent_signals_user_paths;

-- `forget` removes these rows too (signals.forget_user records every forget in ops.forgotten).
create function ops.forget_rejections_and_set_aside() returns trigger
language plpgsql as $$
begin
    delete from ops.rejected_actions where user_id = new.user_id;
    delete from ops.set_aside where user_id = new.user_id;
    return new;
end;
$$;
create trigger forgotten_clears_rejections after insert on ops.forgotten
    for each row execute function ops.forget_rejections_and_set_aside();

-- ---------------------------------------------------------------------------------------------------
-- The messages a run may read: user-role messages of flagged conversations, created up to p_until (and
-- from p_since when set), of p_users when set, past their conversation's watermark unless the run ignores
-- watermarks (backfills, replays), created after the user's latest forget (ops.forgotten), not set aside;
-- plus released messages behind the watermark not read again yet. `waiting`: the user failed recently and
-- is not retried before a failure's retry_after (runs that honour watermarks only).
-- The one copy of this filter: the scan (scan_pending_users.sql), the load of a shard
-- (load_pending_messages.sql) and the idle check (pending_work.sql) all read it. A plain SQL function,
-- inlined by the planner: each conversation is still read from its watermark on through
-- messages_conversation_time_idx, so the cost follows the new messages, not the history.
create function signals.messages_to_read(
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
