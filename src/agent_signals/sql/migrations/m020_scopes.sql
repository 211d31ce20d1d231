-- Scopes (issue 20): a conversation may be with one agent of the product (app.conversations.agent_id, in
-- the source contract as source.conversations.agent_id; null: the product has one agent). A signal is either
-- about the user, for any agent (its profile: agent_id null), or about the user's relationship with one
-- agent (agent_id set). Texts are unique per user, origin and scope; a lookup for a candidate of an agent
-- reads that agent's signals and the profile's (a profile fact already covers every agent, and a profile
-- tombstone, a text the user deleted, is never learned again for any agent).

alter table app.conversations add column agent_id text;

create or replace view source.conversations as
select conversation_id, user_id, channel, extract as flagged, flagged_at, agent_id
from app.conversations;

-- an inferred signal of an agent is contextual: core is the user's identity, the same for every agent
alter table signals.signals add column agent_id text
    constraint signals_agent_scope_check check (agent_id is null or origin = 'manual' or tier = 'contextual');
comment on column signals.signals.agent_id is
    'null: a profile signal (about the user, for every agent); else the agent whose relationship it is about';

drop index signals.signals_user_text_uidx;
create unique index signals_user_text_uidx on signals.signals (user_id, origin, coalesce(agent_id, ''), normalized)
    where status <> 'merged';

alter table staging.apply_candidates add column agent_id text;
alter table staging.apply_new_signals add column agent_id text;

-- The user's own signals, scoped: add_signal takes the agent (null: the profile).
drop function signals.add_signal(text, text, text);
create function signals.add_signal(p_user_id text, p_content text, p_kind text, p_agent_id text default null)
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
alter function signals.add_signal(text, text, text, text) owner to agent_signals_user_paths;
revoke execute on function signals.add_signal(text, text, text, text) from public;
grant execute on function signals.add_signal(text, text, text, text) to agent_signals_app;

-- Editing keeps the signal's scope (an inferred signal the user edits becomes their own in its scope).
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

-- A summary describes the profile: its fingerprint (m005) reads the profile's signals only.
create or replace function signals.fingerprint(p_user_id text) returns text
language sql stable as $$
    select md5(coalesce(string_agg(signal_id::text || ':' || origin || ':' || tier || ':' || kind || ':'
                                   || content, E'\n' order by signal_id), ''))
    from signals.signals
    where user_id = p_user_id and status = 'active' and agent_id is null
$$;

-- Views built before scopes: context.user_signals gains its scope in place (the per-user refresh inserts
-- it), its key (user, bucket, rank) becomes (user, scope, bucket, rank). context.agent_context is built by
-- the next refresh (the views are rebuilt whole when one of them is missing).
do $$
declare
    idx record;
begin
    if to_regclass('context.user_signals') is not null then
        alter table context.user_signals add column if not exists agent_id text;
        for idx in
            select i.indexrelid::regclass as name from pg_index i
            where i.indrelid = 'context.user_signals'::regclass and i.indisunique
        loop
            execute format('drop index %s', idx.name);
        end loop;
        create index if not exists user_signals_scope_idx on context.user_signals (user_id, agent_id, bucket, rank);
    end if;
end;
$$;

-- `forget` removes the user's rows of context.agent_context too (signals.forget_user clears the others).
create function ops.forget_agent_context() returns trigger
language plpgsql as $$
begin
    if to_regclass('context.agent_context') is not null then
        execute 'delete from context.agent_context where user_id = $1' using new.user_id;
    end if;
    return new;
end;
$$;
create trigger forgotten_clears_agent_context after insert on ops.forgotten
    for each row execute function ops.forget_agent_context();

-- The rendering of a context block, one copy for context.user_context and context.agent_context (dbt) and
-- context.user_context_as_of (m021): a bucket's heading and place, a signal's bullet (a line break inside a
-- text would break the list, so it becomes a space), the block's first line.
create function signals.context_heading(p_bucket text) returns text
language sql immutable as $$
    select case p_bucket when 'manual' then '### Confirmed by the user'
                         when 'core' then '### Core identity'
                         else '### Recent context' end
$$;
create function signals.context_order(p_bucket text) returns integer
language sql immutable as $$
    select case p_bucket when 'manual' then 1 when 'core' then 2 else 3 end
$$;
create function signals.context_bullet(p_content text) returns text
language sql immutable as $$
    select '- ' || regexp_replace(p_content, '\s+', ' ', 'g')
$$;
create function signals.context_block(p_body text) returns text
language sql immutable as $$
    select '## About this user' || coalesce(E'\n' || p_body, '')
$$;
