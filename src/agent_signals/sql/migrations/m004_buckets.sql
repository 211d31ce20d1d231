-- The three buckets: the database guarantees the 20-cap on active inferred core signals and refuses any
-- change to a user's own (manual) signals that does not come through the user paths below. Also the
-- embedding column (its dimension is set from configuration by `agent-signals db migrate`).

alter table signals.signals add column embedding vector;
alter table ops.runs add column embedding_calls integer not null default 0,
                     add column embedding_tokens bigint not null default 0;

-- Text normalisation used by the user paths; the pipeline's twin is agent_signals.text.normalize_content
-- (tests keep them equal).
create function signals.normalize_text(content text) returns text
language sql immutable parallel safe as $$
    select btrim(
        lower(regexp_replace(
            regexp_replace(
                translate(normalize(content, NFKC), E'\u2018\u2019\u201c\u201d\u00a0', E'''''"" '),
                E'[\\x01-\\x1f\\x7f]', ' ', 'g'),
            E'\\s+', ' ', 'g')),
        E' .,;:!?''"()[]')
$$;

-- DESIGN.md's retention: exp(-days_since_last_seen / S), S = base_days * (1 + boost * (mentions - 1)).
create function signals.retention(
    last_seen_at timestamptz,
    mention_count integer,
    at timestamptz,
    base_days double precision default 30,
    mention_boost double precision default 0.5
) returns double precision
language sql immutable parallel safe as $$
    select exp(
        -greatest(extract(epoch from (at - last_seen_at)) / 86400.0, 0)
        / (base_days * (1 + mention_boost * (greatest(mention_count, 1) - 1)))
    )
$$;

-- ---------------------------------------------------------------------------------------------------
-- The cap: no committed transaction leaves a user with more than 20 active inferred core signals.
create function signals.core_cap() returns integer language sql immutable as $$ select 20 $$;

create function signals.check_core_cap() returns trigger
language plpgsql as $$
declare
    active_core integer;
begin
    select count(*) into active_core
    from signals.signals
    where user_id = new.user_id and origin = 'inferred' and tier = 'core' and status = 'active';
    if active_core > signals.core_cap() then
        raise exception 'user % would have % active inferred core signals; the cap is %',
            new.user_id, active_core, signals.core_cap()
            using errcode = 'check_violation',
                  hint = 'demote or merge core signals in the same transaction (the reconciler does)';
    end if;
    return null;
end;
$$;

create constraint trigger signals_core_cap
    after insert or update of tier, status, origin, user_id on signals.signals
    deferrable initially deferred
    for each row
    when (new.origin = 'inferred' and new.tier = 'core' and new.status = 'active')
    execute function signals.check_core_cap();

-- ---------------------------------------------------------------------------------------------------
-- Manual signals: only the user paths (functions owned by agent_signals_user_paths) may write them.
do $$
begin
    if not exists (select from pg_roles where rolname = 'agent_signals_user_paths') then
        create role agent_signals_user_paths nologin;
    end if;
exception when duplicate_object or unique_violation then
    null;  -- created meanwhile by a migration of another database on this server
end;
$$;
grant usage on schema signals to agent_signals_user_paths;
grant select, insert, update on signals.signals to agent_signals_user_paths;
grant select, insert, delete on signals.evidence to agent_signals_user_paths;
grant select, insert on signals.events to agent_signals_user_paths;

create function signals.guard_manual() returns trigger
language plpgsql as $$
begin
    if current_user = 'agent_signals_user_paths' then
        return coalesce(new, old);
    end if;
    if (tg_op in ('UPDATE', 'DELETE') and old.origin = 'manual')
       or (tg_op in ('INSERT', 'UPDATE') and new.origin = 'manual') then
        raise exception 'signals of origin manual are the user''s own: % refused', lower(tg_op)
            using errcode = 'insufficient_privilege',
                  hint = 'use signals.add_signal, signals.edit_signal or signals.delete_signal';
    end if;
    return coalesce(new, old);
end;
$$;

create trigger signals_guard_manual
    before insert or update or delete on signals.signals
    for each row execute function signals.guard_manual();
create function signals.refuse_truncate() returns trigger
language plpgsql as $$
begin
    raise exception 'truncate of %.% refused: it would destroy the users'' own signals', tg_table_schema, tg_table_name
        using errcode = 'insufficient_privilege';
end;
$$;
create trigger signals_no_truncate
    before truncate on signals.signals
    for each statement execute function signals.refuse_truncate();

create function signals.lock_user(p_user_id text) returns void
language sql as $$
    select pg_advisory_xact_lock(hashtextextended('agent_signals.user:' || p_user_id, 0))
$$;

create function signals.log_user_event(p_signal_id uuid, p_user_id text, p_action text, p_before jsonb, p_after jsonb)
returns bigint
language sql as $$
    insert into signals.events (signal_id, user_id, action, actor, before, after)
    values (p_signal_id, p_user_id, p_action, 'user', p_before, p_after)
    returning event_id
$$;

-- Add one of the user's own signals; adding the same text again returns the existing one.
create function signals.add_signal(p_user_id text, p_content text, p_kind text)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    found signals.signals;
    new_id uuid;
begin
    if coalesce(btrim(p_user_id), '') = '' then
        raise exception 'a user id is required' using errcode = 'invalid_parameter_value';
    end if;
    if key = '' or length(clean) > 300 then
        raise exception 'a signal needs between 1 and 300 characters of text' using errcode = 'invalid_parameter_value';
    end if;
    if coalesce(p_kind, '') !~ '^[a-z_][a-z0-9_]*$' then
        raise exception 'kind % is not a lower-case identifier', p_kind using errcode = 'invalid_parameter_value';
    end if;
    perform signals.lock_user(p_user_id);
    select * into found from signals.signals
    where user_id = p_user_id and origin = 'manual' and normalized = key and status <> 'merged'
    for update;
    if found.signal_id is not null then
        if found.status <> 'active' then
            update signals.signals set status = 'active', content = clean, kind = p_kind, embedding = null,
                updated_at = now()
            where signal_id = found.signal_id;
            perform signals.log_user_event(found.signal_id, p_user_id, 'create', (to_jsonb(found) - 'embedding'),
                (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = found.signal_id));
        end if;
        return found.signal_id;
    end if;
    insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                                 mention_count, first_seen_at, last_seen_at)
    values (gen_random_uuid(), p_user_id, clean, key, p_kind, 'core', 'manual', 'active', 1, now(), now())
    returning signal_id into new_id;
    perform signals.log_user_event(new_id, p_user_id, 'create', null,
        (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = new_id));
    return new_id;
end;
$$;

-- Edit one of the user's signals. A manual signal is rewritten in place; editing an inferred signal makes
-- the user's text a manual signal and leaves the inferred one as a tombstone. Returns the edited signal.
create function signals.edit_signal(p_user_id text, p_signal_id uuid, p_content text, p_kind text default null)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    old signals.signals;
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    new_id uuid;
begin
    perform signals.lock_user(p_user_id);
    select * into old from signals.signals
    where signal_id = p_signal_id and user_id = p_user_id and status in ('active', 'archived')
    for update;
    if old.signal_id is null then
        raise exception 'user % has no signal % to edit', p_user_id, p_signal_id
            using errcode = 'no_data_found';
    end if;
    if key = '' or length(clean) > 300 then
        raise exception 'a signal needs between 1 and 300 characters of text' using errcode = 'invalid_parameter_value';
    end if;
    if old.origin = 'inferred' then
        update signals.signals set status = 'deleted', updated_at = now() where signal_id = old.signal_id;
        perform signals.log_user_event(old.signal_id, p_user_id, 'delete', (to_jsonb(old) - 'embedding'),
            (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = old.signal_id));
        return signals.add_signal(p_user_id, clean, coalesce(p_kind, old.kind));
    end if;
    if exists (select from signals.signals where user_id = p_user_id and origin = 'manual' and normalized = key
               and status <> 'merged' and signal_id <> old.signal_id) then
        raise exception 'user % already has a signal with this text', p_user_id using errcode = 'unique_violation';
    end if;
    update signals.signals
    set content = clean, normalized = key, kind = coalesce(p_kind, kind), status = 'active', embedding = null,
        updated_at = now()
    where signal_id = old.signal_id;
    perform signals.log_user_event(old.signal_id, p_user_id, 'edit', (to_jsonb(old) - 'embedding'),
        (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = old.signal_id));
    return old.signal_id;
end;
$$;

-- Delete one of the user's signals. A deleted inferred signal stays as a tombstone: its text (or a near
-- duplicate of it) is never written again by the pipeline.
create function signals.delete_signal(p_user_id text, p_signal_id uuid)
returns void
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    old signals.signals;
begin
    perform signals.lock_user(p_user_id);
    select * into old from signals.signals
    where signal_id = p_signal_id and user_id = p_user_id and status <> 'merged'
    for update;
    if old.signal_id is null then
        raise exception 'user % has no signal %', p_user_id, p_signal_id using errcode = 'no_data_found';
    end if;
    if old.status = 'deleted' then
        return;
    end if;
    update signals.signals set status = 'deleted', updated_at = now() where signal_id = old.signal_id;
    perform signals.log_user_event(old.signal_id, p_user_id, 'delete', (to_jsonb(old) - 'embedding'),
        (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = old.signal_id));
end;
$$;

-- The embedding of any signal, the user's own included (the pipeline embeds signals added by hand).
create function signals.set_embedding(p_signal_id uuid, p_embedding vector)
returns void
language sql security definer set search_path = pg_catalog, public, pg_temp as $$
    update signals.signals set embedding = p_embedding where signal_id = p_signal_id
$$;

alter function signals.add_signal(text, text, text) owner to agent_signals_user_paths;
alter function signals.set_embedding(uuid, vector) owner to agent_signals_user_paths;
alter function signals.edit_signal(text, uuid, text, text) owner to agent_signals_user_paths;
alter function signals.delete_signal(text, uuid) owner to agent_signals_user_paths;
grant execute on function signals.lock_user(text) to agent_signals_user_paths;
grant execute on function signals.log_user_event(uuid, text, text, jsonb, jsonb) to agent_signals_user_paths;
grant execute on function signals.normalize_text(text) to agent_signals_user_paths;
