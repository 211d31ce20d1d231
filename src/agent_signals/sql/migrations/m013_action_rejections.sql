-- Each action of an answer judged on its own, failing users retried with growing backoff, then the messages
-- their failing calls read set aside (issue 15, points 6 and 7). The one definition of the messages a run
-- reads, signals.messages_to_read, and forget's trigger on these tables: sql/functions/.

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
