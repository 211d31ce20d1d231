create temporary table load_conversations (
    conversation_id text primary key,
    user_id         text not null,
    channel         text,
    agent_id        text,
    extract         boolean not null
) on commit drop;
create temporary table load_messages (
    conversation_id text not null,
    message_id      text not null,
    role            text not null,
    content         text not null,
    created_at      timestamptz not null
) on commit drop;
