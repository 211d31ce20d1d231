-- The demo's own source tables, and the source contract: the only views the pipeline reads
-- conversations and messages through. A deployment repoints source.* at its own tables
-- (see sql/source_contract.md); nothing else in the pipeline names app.*.

create schema if not exists app;

create table app.conversations (
    conversation_id  text primary key,
    user_id          text not null,
    channel          text,
    extract          boolean not null default false,
    flagged_at       timestamptz,
    loaded_at        timestamptz not null default now()
);
create index conversations_user_idx on app.conversations (user_id);

create table app.messages (
    conversation_id  text not null references app.conversations (conversation_id),
    message_id       text not null,
    role             text not null check (role in ('user', 'assistant', 'tool', 'system')),
    content          text not null,
    created_at       timestamptz not null,
    primary key (conversation_id, message_id)
);
create index messages_conversation_time_idx on app.messages (conversation_id, created_at, message_id);

create schema if not exists source;

create view source.conversations as
select conversation_id, user_id, channel, extract as flagged, flagged_at
from app.conversations;

create view source.messages as
select message_id, conversation_id, role, content, created_at
from app.messages;
