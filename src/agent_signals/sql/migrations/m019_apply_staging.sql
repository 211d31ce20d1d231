-- The staging tables of the set-based write path (store/shard_writer.py, issue 19). A shard's write
-- transaction COPYs the rows it built into them under its own key (`batch`), and each statement that reads
-- them consumes its key's rows (`delete ... returning`) in the same transaction: they hold nothing after a
-- commit, and a rollback takes its rows with it. Unlogged: rows that never outlive their transaction need
-- no WAL. Permanent tables rather than temporary ones: a session that used temporary tables runs a
-- transaction of its own to drop them when it ends, and many concurrent writes share these without
-- seeing each other's rows (each reads its key only).

create schema if not exists staging;

create unlogged table staging.apply_candidates (
    batch uuid not null, seq int not null, user_id text not null, normalized text not null,
    kind text not null, exclusive boolean not null, embedding vector, target uuid
);
create unlogged table staging.apply_new_signals (
    batch uuid not null, signal_id uuid not null, user_id text not null, content text not null,
    normalized text not null, kind text not null, tier text not null, first_seen_at timestamptz not null,
    last_seen_at timestamptz not null, embedding vector, mentions int not null, run_id uuid not null,
    prompt_version text not null, model text not null
);
create unlogged table staging.apply_new_evidence (
    batch uuid not null, signal_id uuid not null, conversation_id text not null, message_id text not null,
    quote text not null, message_at timestamptz not null
);
create unlogged table staging.apply_cited_evidence (
    batch uuid not null, signal_id uuid not null, conversation_id text not null, message_id text not null,
    quote text not null, message_at timestamptz not null
);
create unlogged table staging.apply_rewrites (
    batch uuid not null, signal_id uuid not null, content text not null, normalized text not null,
    kind text not null, tier text not null, embedding vector
);

create index apply_candidates_batch_idx on staging.apply_candidates (batch);
create index apply_new_signals_batch_idx on staging.apply_new_signals (batch);
create index apply_new_evidence_batch_idx on staging.apply_new_evidence (batch);
create index apply_cited_evidence_batch_idx on staging.apply_cited_evidence (batch);
create index apply_rewrites_batch_idx on staging.apply_rewrites (batch);
