-- Staging for a flat file (NDJSON, Parquet): one row per message as the file has it, with its 1-based row
-- number so the checks after COPY can name the row (store/load_rows.py). Split into load_conversations and
-- load_messages by load_rows_split once the whole file is in.
create temporary table load_rows (
    row_number      bigint not null,
    conversation_id text not null,
    user_id         text not null,
    channel         text,
    agent_id        text,
    extract         boolean not null,
    message_id      text not null,
    role            text not null,
    content         text not null,
    created_at      timestamptz not null
) on commit drop;
