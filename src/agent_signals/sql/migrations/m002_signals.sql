-- Signals, their evidence, the append-only event log and per-conversation watermarks (the triggers that keep
-- the log append-only: sql/functions/40_guards.sql).

create extension if not exists vector;
create schema if not exists signals;

create table signals.signals (
    signal_id      uuid primary key,
    user_id        text not null,
    content        text not null check (length(btrim(content)) between 1 and 500),
    normalized     text not null,
    kind           text not null,
    tier           text not null check (tier in ('core', 'contextual')),
    origin         text not null check (origin in ('manual', 'inferred')),
    status         text not null default 'active'
                   check (status in ('active', 'archived', 'merged', 'deleted')),
    mention_count  integer not null default 1 check (mention_count >= 1),
    first_seen_at  timestamptz not null,
    last_seen_at   timestamptz not null,
    decay_score    double precision not null default 1.0,
    merged_into    uuid references signals.signals (signal_id),
    created_at     timestamptz not null default now(),
    updated_at     timestamptz not null default now()
);
-- One row per (user, origin, text) outside merges: a re-statement reinforces, a deleted text stays a tombstone.
create unique index signals_user_text_uidx on signals.signals (user_id, origin, normalized)
    where status <> 'merged';
create index signals_user_status_idx on signals.signals (user_id, status, tier);

create table signals.evidence (
    signal_id        uuid not null references signals.signals (signal_id),
    conversation_id  text not null,
    message_id       text not null,
    quote            text not null check (length(quote) > 0),
    message_at       timestamptz not null,
    run_id           uuid,
    created_at       timestamptz not null default now(),
    primary key (signal_id, conversation_id, message_id)
);
create index evidence_message_idx on signals.evidence (conversation_id, message_id);

create table signals.events (
    event_id        bigint generated always as identity primary key,
    signal_id       uuid,
    user_id         text not null,
    run_id          uuid,
    action          text not null,
    actor           text not null check (actor in ('pipeline', 'reconciler', 'user')),
    prompt_version  text,
    model           text,
    before          jsonb,
    after           jsonb,
    at              timestamptz not null default now()
);
create index events_signal_idx on signals.events (signal_id);
create index events_user_idx on signals.events (user_id, at);
create index events_run_idx on signals.events (run_id);

-- How far each flagged conversation has been read: (created_at, message_id) of the last message
-- that went through a successful extraction.
create table signals.watermarks (
    conversation_id  text primary key,
    user_id          text not null,
    last_message_at  timestamptz not null,
    last_message_id  text not null,
    run_id           uuid,
    updated_at       timestamptz not null default now()
);
create index watermarks_user_idx on signals.watermarks (user_id);
