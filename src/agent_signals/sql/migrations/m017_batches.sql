-- Provider batch mode (issue 18, AGENT_SIGNALS_BATCH_MODE=provider): the batches a run sent to the
-- provider's batch API and, for each request of them, the user, the call and what the prompt showed, so
-- that a later run validates and applies the answer exactly as the run that asked would have.
--
-- A batch's life: `preparing` (recorded with its requests before anything is uploaded: a run that dies
-- after creating the provider's batch and before recording its id leaves this row, and the next run finds
-- the provider's batch again by batch_key, which travels in its metadata, or abandons it when the provider
-- has none) -> `submitted` (the provider's id recorded) -> `ended` (the provider says completed, expired,
-- cancelled or failed; its output and error files recorded) -> `collected` (no request of it is waiting).
-- `abandoned`: never created at the provider, or lost; `unsent`: the provider refused it. Either way its
-- requests are closed `unanswered` and their users are pending again.

create table ops.batches (
    batch_key          uuid primary key,
    provider_batch_id  text unique,
    run_id             uuid not null references ops.runs (run_id),
    purpose            text not null check (purpose in ('extract', 'summarize')),
    model              text not null,   -- the model and prompt version the requests were rendered for:
    prompt_version     text not null,   -- their answers are validated and recorded with these
    answer_mode        text,
    status             text not null default 'preparing'
        check (status in ('preparing', 'submitted', 'ended', 'collected', 'abandoned', 'unsent')),
    provider_status    text,            -- the provider's own word (validating, in_progress, completed, ...)
    output_file_id     text,
    error_file_id      text,
    requests           integer not null,
    answered           integer,         -- what the provider counted, once ended
    failed             integer,
    error              text,            -- why it was abandoned or refused, redacted
    created_at         timestamptz not null default now(),
    submitted_at       timestamptz,
    ended_at           timestamptz,
    collected_at       timestamptz
);
create index batches_open_idx on ops.batches (status) where status in ('preparing', 'submitted', 'ended');

-- One request of a batch: one call of one user (an extraction, or a summary when
-- AGENT_SIGNALS_BATCH_FOLLOWUPS=batch). `messages` are the handles the prompt showed
-- ([{handle, conversation_id, message_id, kept}], kept: the characters shown of a message cut to fit,
-- null when whole) and `signals` the known signals it showed ([{handle, signal_id}]): ids only, never the
-- text, which stays in source.messages and signals.signals.
-- `waiting` until the user's answers are applied (closed in the transaction that writes them), fail
-- (`failed`), or never come (`unanswered`: expired, cancelled, refused, lost).
create table ops.batch_requests (
    batch_key      uuid not null references ops.batches (batch_key) on delete cascade,
    custom_id      text not null,
    user_id        text not null,
    purpose        text not null check (purpose in ('extract', 'summarize')),  -- its batch's
    fingerprint    text,            -- summarize: the signal set (signals.fingerprint) the summary describes
    call_index     integer not null check (call_index >= 0),
    calls          integer not null check (calls > call_index),
    messages       jsonb not null,
    signals        jsonb not null,
    max_tokens     integer not null,
    status         text not null default 'waiting'
        check (status in ('waiting', 'applied', 'failed', 'unanswered')),
    error_kind     text,            -- failed: why (`truncated`: the user's next request gets a larger budget)
    closed_at      timestamptz,
    closed_by_run  uuid,
    primary key (batch_key, custom_id)
);
-- A user is in at most one batch of each purpose at a time: a user with a waiting request is never sent again.
create unique index batch_requests_one_open_idx on ops.batch_requests (user_id, purpose, call_index)
    where status = 'waiting';
create index batch_requests_batch_idx on ops.batch_requests (batch_key) where status = 'waiting';

grant select, insert, update on ops.batches, ops.batch_requests to agent_signals_pipeline;
grant select, delete on ops.batch_requests to agent_signals_user_paths;

-- A run's model calls, tokens and cost by how they were made: {"direct": {"calls", "prompt_tokens",
-- "completion_tokens", "cost_usd"}, "batch": {...}} (batch answers at the batch price), and what it did with
-- batches: {"sent", "requests_sent", "users_sent", "answers" (requests), "unanswered" and "failed" (users),
-- "adopted", "abandoned", "unsent"; summary batches' with a summarize_ prefix}.
alter table ops.runs
    add column by_mode jsonb not null default '{}'::jsonb,
    add column batches jsonb not null default '{}'::jsonb;
