-- The user paths: the only way to add, edit or delete a user's own signals. The functions run as
-- agent_signals_user_paths (security definer; the role reads, inserts and updates signals and inserts events,
-- and owns no table); the application calls them (agent_signals_app).

-- A user's write lock, the one the pipeline's lock_users.sql takes too.
create or replace function signals.lock_user(p_user_id text) returns void
language sql as $$
    select pg_advisory_xact_lock(hashtextextended('agent_signals.user:' || p_user_id, 0))
$$;

-- One event of the user's (actor `user`), before and after being the rows.
create or replace function signals.log_user_event(p_signal_id uuid, p_user_id text, p_action text, p_before jsonb, p_after jsonb)
returns bigint
language sql as $$
    insert into signals.events (signal_id, user_id, action, actor, before, after)
    values (p_signal_id, p_user_id, p_action, 'user', p_before, p_after)
    returning event_id
$$;

-- Add one of the user's own signals in a scope (p_agent_id; null: the profile); adding the same text again
-- returns the existing one.
create or replace function signals.add_signal(p_user_id text, p_content text, p_kind text, p_agent_id text default null)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    max_chars integer := signals.limit('content_max_chars');
    agent text := nullif(btrim(p_agent_id), '');
    found signals.signals;
    new_id uuid;
begin
    if coalesce(btrim(p_user_id), '') = '' then
        raise exception 'a user id is required' using errcode = 'invalid_parameter_value';
    end if;
    if key = '' or length(clean) > max_chars then
        raise exception 'a signal needs between 1 and % characters of text', max_chars
            using errcode = 'invalid_parameter_value';
    end if;
    if coalesce(p_kind, '') !~ '^[a-z_][a-z0-9_]*$' then
        raise exception 'kind % is not a lower-case identifier', p_kind using errcode = 'invalid_parameter_value';
    end if;
    perform signals.lock_user(p_user_id);
    select * into found from signals.signals
    where user_id = p_user_id and origin = 'manual' and normalized = key and status <> 'merged'
      and agent_id is not distinct from agent
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
                                 mention_count, first_seen_at, last_seen_at, agent_id)
    values (gen_random_uuid(), p_user_id, clean, key, p_kind, 'core', 'manual', 'active', 1, now(), now(), agent)
    returning signal_id into new_id;
    perform signals.log_user_event(new_id, p_user_id, 'create', null,
        (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = new_id));
    return new_id;
end;
$$;

-- Edit one of the user's signals, keeping its scope. A manual signal is rewritten in place; editing an
-- inferred signal makes the user's text a manual signal and leaves the inferred one as a tombstone. Returns
-- the edited signal.
create or replace function signals.edit_signal(p_user_id text, p_signal_id uuid, p_content text,
                                               p_kind text default null)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    old signals.signals;
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    max_chars integer := signals.limit('content_max_chars');
begin
    perform signals.lock_user(p_user_id);
    select * into old from signals.signals
    where signal_id = p_signal_id and user_id = p_user_id and status in ('active', 'archived')
    for update;
    if old.signal_id is null then
        raise exception 'user % has no signal % to edit', p_user_id, p_signal_id
            using errcode = 'no_data_found';
    end if;
    if key = '' or length(clean) > max_chars then
        raise exception 'a signal needs between 1 and % characters of text', max_chars
            using errcode = 'invalid_parameter_value';
    end if;
    if old.origin = 'inferred' then
        update signals.signals set status = 'deleted', updated_at = now() where signal_id = old.signal_id;
        perform signals.log_user_event(old.signal_id, p_user_id, 'delete', (to_jsonb(old) - 'embedding'),
            (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = old.signal_id));
        return signals.add_signal(p_user_id, clean, coalesce(p_kind, old.kind), old.agent_id);
    end if;
    if exists (select from signals.signals where user_id = p_user_id and origin = 'manual' and normalized = key
               and status <> 'merged' and signal_id <> old.signal_id
               and agent_id is not distinct from old.agent_id) then
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
create or replace function signals.delete_signal(p_user_id text, p_signal_id uuid)
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
create or replace function signals.set_embedding(p_signal_id uuid, p_embedding vector)
returns void
language sql security definer set search_path = pg_catalog, public, pg_temp as $$
    update signals.signals set embedding = p_embedding where signal_id = p_signal_id
$$;

alter function signals.add_signal(text, text, text, text) owner to agent_signals_user_paths;
alter function signals.edit_signal(text, uuid, text, text) owner to agent_signals_user_paths;
alter function signals.delete_signal(text, uuid) owner to agent_signals_user_paths;
alter function signals.set_embedding(uuid, vector) owner to agent_signals_user_paths;
grant execute on function signals.lock_user(text), signals.log_user_event(uuid, text, text, jsonb, jsonb)
    to agent_signals_user_paths;
revoke execute on function signals.add_signal(text, text, text, text), signals.edit_signal(text, uuid, text, text),
    signals.delete_signal(text, uuid) from public;
grant execute on function signals.add_signal(text, text, text, text), signals.edit_signal(text, uuid, text, text),
    signals.delete_signal(text, uuid) to agent_signals_app;
