-- The read path's inputs: per-user summaries (rebuilt only when the user's active signal set changed,
-- which the fingerprint decides) and the users each run touched (what the incremental views refresh).

create table signals.summaries (
    user_id         text primary key,
    summary         text not null,
    fingerprint     text not null,
    signal_count    integer not null,
    model           text,
    prompt_version  text,
    run_id          uuid,
    updated_at      timestamptz not null default now()
);

create table ops.touched_users (
    run_id   uuid not null references ops.runs (run_id),
    user_id  text not null,
    primary key (run_id, user_id)
);

alter table ops.runs add column llm_calls_by_purpose jsonb not null default '{}'::jsonb,
                     add column warnings jsonb not null default '[]'::jsonb,
                     add column refresh_s double precision;

-- The fingerprint of a user's active signal set: what the summary and the views are built from.
create function signals.fingerprint(p_user_id text) returns text
language sql stable as $$
    select md5(coalesce(string_agg(signal_id::text || ':' || origin || ':' || tier || ':' || kind || ':'
                                   || content, E'\n' order by signal_id), ''))
    from signals.signals
    where user_id = p_user_id and status = 'active'
$$;

-- Users whose signals changed since the views last refreshed them, whoever changed them (a run, the
-- user paths, an operator). Decay-score updates alone do not count: they would make every user dirty.
create table signals.dirty_users (
    user_id  text primary key,
    since    timestamptz not null default now()
);
grant select, insert, update on signals.dirty_users to agent_signals_user_paths;

create function signals.mark_dirty() returns trigger
language plpgsql as $$
begin
    insert into signals.dirty_users as d (user_id, since) values (coalesce(new.user_id, old.user_id), now())
    on conflict (user_id) do update set since = excluded.since where d.since < excluded.since;
    return null;
end;
$$;

create trigger signals_mark_dirty
    after insert or delete or update of content, kind, tier, origin, status, mention_count, last_seen_at
    on signals.signals
    for each row execute function signals.mark_dirty();
