create schema if not exists ops;
create table if not exists ops.schema_migrations (
    version     text primary key,
    name        text not null,
    checksum    text not null,
    applied_at  timestamptz not null default now()
);
