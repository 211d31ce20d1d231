-- The staging tables of a shard's write (store/shard_writer.py), one set per connection, emptied by the
-- statements that read them (each consumes its table with `delete ... returning`) and at commit.
create temp table if not exists apply_candidates (
    seq int not null, user_id text not null, normalized text not null, kind text not null,
    exclusive boolean not null, embedding vector, target uuid
) on commit delete rows;
create temp table if not exists apply_new_signals (
    signal_id uuid not null, user_id text not null, content text not null, normalized text not null,
    kind text not null, tier text not null, first_seen_at timestamptz not null,
    last_seen_at timestamptz not null, embedding vector, mentions int not null, run_id uuid not null,
    prompt_version text not null, model text not null
) on commit delete rows;
create temp table if not exists apply_new_evidence (
    signal_id uuid not null, conversation_id text not null, message_id text not null, quote text not null,
    message_at timestamptz not null
) on commit delete rows;
create temp table if not exists apply_cited_evidence (
    signal_id uuid not null, conversation_id text not null, message_id text not null, quote text not null,
    message_at timestamptz not null
) on commit delete rows;
create temp table if not exists apply_rewrites (
    signal_id uuid not null, content text not null, normalized text not null, kind text not null,
    tier text not null, embedding vector
) on commit delete rows;
