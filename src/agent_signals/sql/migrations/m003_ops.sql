-- The runs ledger and per-user failures.

create table ops.runs (
    run_id             uuid primary key,
    kind               text not null check (kind in ('scheduled', 'backfill', 'manual')),
    status             text not null default 'running'
                       check (status in ('running', 'succeeded', 'partial', 'failed', 'abandoned',
                                         'budget_exhausted')),
    flow_run_id        uuid,
    window_start       timestamptz,
    window_end         timestamptz,
    started_at         timestamptz not null default now(),
    finished_at        timestamptz,
    users              integer not null default 0,
    conversations      integer not null default 0,
    messages           integer not null default 0,
    actions            jsonb not null default '{}'::jsonb,
    llm_calls          integer not null default 0,
    prompt_tokens      bigint not null default 0,
    completion_tokens  bigint not null default 0,
    cost_usd           numeric(14, 6) not null default 0,
    failures           integer not null default 0,
    model              text,
    prompt_version     text,
    error              text
);
create index runs_started_idx on ops.runs (started_at desc);

create table ops.failures (
    failure_id       bigint generated always as identity primary key,
    run_id           uuid not null references ops.runs (run_id),
    user_id          text not null,
    stage            text not null check (stage in ('extract', 'validate', 'apply')),
    error_kind       text not null,
    message          text not null,
    raw_answer       text,
    at               timestamptz not null default now(),
    resolved_at      timestamptz,
    resolved_by_run  uuid
);
create index failures_open_idx on ops.failures (user_id) where resolved_at is null;
