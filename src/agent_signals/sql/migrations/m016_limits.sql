-- The shared limits (issue 17, point 4): one row per limit, written from src/agent_signals/limits.py by
-- `agent-signals db migrate` on every run of it, and read by SQL through signals.limit(name). The cap
-- trigger, the user paths and the content check read them here instead of their own literals.

create table signals.limits (
    name   text primary key,
    value  integer not null
);
grant select on signals.limits to agent_signals_pipeline, agent_signals_user_paths, agent_signals_app,
    agent_signals_analyst;

-- A limit by name; an unknown name (or a database not migrated by this code) is an error, never a null that
-- would let every comparison pass.
create function signals.limit(p_name text) returns integer
language plpgsql stable parallel safe as $$
declare
    found integer;
begin
    select value into found from signals.limits where name = p_name;
    if found is null then
        raise exception 'limit % is not set in signals.limits', p_name
            using errcode = 'undefined_object', hint = 'run `agent-signals db migrate`';
    end if;
    return found;
end;
$$;

-- ---------------------------------------------------------------------------------------------------
-- The cap (m004): the trigger reads it as a limit; signals.core_cap() goes.
create or replace function signals.check_core_cap() returns trigger
language plpgsql as $$
declare
    active_core integer;
    cap integer := signals.limit('core_cap');
begin
    select count(*) into active_core
    from signals.signals
    where user_id = new.user_id and origin = 'inferred' and tier = 'core' and status = 'active';
    if active_core > cap then
        raise exception 'user % would have % active inferred core signals; the cap is %',
            new.user_id, active_core, cap
            using errcode = 'check_violation',
                  hint = 'demote or merge core signals in the same transaction (the reconciler does)';
    end if;
    return null;
end;
$$;
drop function signals.core_cap();

-- ---------------------------------------------------------------------------------------------------
-- A signal's text: at most content_max_chars characters (m002 checked a looser 500), for every writer.
alter table signals.signals drop constraint signals_content_check;
alter table signals.signals add constraint signals_content_check check (length(btrim(content)) >= 1);

create function signals.check_content_length() returns trigger
language plpgsql as $$
declare
    max_chars integer := signals.limit('content_max_chars');
begin
    if length(btrim(new.content)) > max_chars then
        raise exception 'a signal''s text is longer than % characters', max_chars
            using errcode = 'check_violation';
    end if;
    return new;
end;
$$;

create trigger signals_content_length
    before insert or update of content on signals.signals
    for each row
    execute function signals.check_content_length();

-- The user paths (m004), their text limit read as a limit; otherwise unchanged.
create or replace function signals.add_signal(p_user_id text, p_content text, p_kind text)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    max_chars integer := signals.limit('content_max_chars');
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

create or replace function signals.edit_signal(p_user_id text, p_signal_id uuid, p_content text,
                                               p_kind text default null)
returns uuid
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    old signals.signals;
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    max_chars integer := signals.limit('content_max_chars');
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
    if key = '' or length(clean) > max_chars then
        raise exception 'a signal needs between 1 and % characters of text', max_chars
            using errcode = 'invalid_parameter_value';
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
