-- The triggers that hold the tables' invariants whoever writes to them.

-- signals.events is append-only; only signals.forget_user, running as the user paths' role with
-- agent_signals.forgetting on, may remove a user's events.
create or replace function signals.refuse_event_change() returns trigger
language plpgsql as $$
begin
    if tg_op = 'DELETE' and current_user = 'agent_signals_user_paths'
       and current_setting('agent_signals.forgetting', true) = 'on' then
        return old;  -- forget_user, the one path that may remove events
    end if;
    raise exception 'signals.events is append-only (% refused)', tg_op
        using errcode = 'insufficient_privilege';
end;
$$;

create or replace trigger events_append_only
    before update or delete on signals.events
    for each row execute function signals.refuse_event_change();
create or replace trigger events_no_truncate
    before truncate on signals.events
    for each statement execute function signals.refuse_event_change();

-- The cap: no committed transaction leaves a user with more than signals.limit('core_cap') active inferred
-- core signals.
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

drop trigger if exists signals_core_cap on signals.signals;
create constraint trigger signals_core_cap
    after insert or update of tier, status, origin, user_id on signals.signals
    deferrable initially deferred
    for each row
    when (new.origin = 'inferred' and new.tier = 'core' and new.status = 'active')
    execute function signals.check_core_cap();

-- A signal's text is at most signals.limit('content_max_chars') characters, for every writer.
create or replace function signals.check_content_length() returns trigger
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

create or replace trigger signals_content_length
    before insert or update of content on signals.signals
    for each row
    execute function signals.check_content_length();

-- The user's own (manual) signals: only the user paths (functions owned by agent_signals_user_paths,
-- 50_user_paths.sql) may write them, and no truncate destroys them.
create or replace function signals.guard_manual() returns trigger
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

create or replace trigger signals_guard_manual
    before insert or update or delete on signals.signals
    for each row execute function signals.guard_manual();

create or replace function signals.refuse_truncate() returns trigger
language plpgsql as $$
begin
    raise exception 'truncate of %.% refused: it would destroy the users'' own signals', tg_table_schema, tg_table_name
        using errcode = 'insufficient_privilege';
end;
$$;

create or replace trigger signals_no_truncate
    before truncate on signals.signals
    for each statement execute function signals.refuse_truncate();

-- Users whose signals changed since the views last refreshed them, whoever changed them (a run, the user
-- paths, an operator), in signals.dirty_users: a change of any column the views read marks the user. Decay
-- score updates alone do not count: they would make every user dirty.
create or replace function signals.mark_dirty() returns trigger
language plpgsql as $$
begin
    insert into signals.dirty_users as d (user_id, since) values (coalesce(new.user_id, old.user_id), now())
    on conflict (user_id) do update set since = excluded.since where d.since < excluded.since;
    return null;
end;
$$;

create or replace trigger signals_mark_dirty
    after insert or delete or update of content, kind, tier, origin, status, mention_count, last_seen_at, agent_id
    on signals.signals
    for each row execute function signals.mark_dirty();
