-- The MCP server's functions (`agent-signals mcp`, docs/agents.md): everything an agent may do, and nothing
-- else. The server connects as agent_signals_mcp (m028), which can execute these four and read the context
-- views; each runs as a role that owns no table (security definer, a fixed search_path) and names the user
-- it acts for. A user no conversation or signal names is refused with a hint, never answered as empty.

-- The user an agent names exists: some conversation or signal of theirs (runs as the pipeline, which reads
-- the source contract). Raises no_data_found otherwise.
create or replace function mcp.require_user(p_user_id text) returns void
language plpgsql stable security definer set search_path = pg_catalog, pg_temp as $$
begin
    if coalesce(btrim(p_user_id), '') = '' then
        raise exception 'a user id is required' using errcode = 'invalid_parameter_value';
    end if;
    if not exists (select from source.conversations c where c.user_id = p_user_id)
       and not exists (select from signals.signals s where s.user_id = p_user_id) then
        raise exception 'no conversations or signals for user %', p_user_id
            using errcode = 'no_data_found',
                  hint = 'check the user id: the one your application stores as source.conversations.user_id';
    end if;
end;
$$;

-- The block an agent pastes: the user's row of context.user_context (context.agent_context for an agent), as
-- the views render it. When the user's signals changed after the row was refreshed (a change by hand, a
-- remember or forget since the last run), or the user has no row yet, the block is the as-of rendering at
-- now (context.user_context_as_of / agent_context_as_of, the same SQL rendering); with p_at, the block as it
-- was then. `rendered`: 'view', 'live' (as of now) or 'as_of'. The summary is the view's only (the as-of
-- reads do not rebuild it).
create or replace function mcp.get_context(p_user_id text, p_agent_id text default null,
                                           p_at timestamptz default null)
returns table (context_markdown text, summary text, refreshed_at timestamptz, rendered text)
language plpgsql stable security definer set search_path = pg_catalog, pg_temp as $$
#variable_conflict use_column
declare
    agent text := nullif(btrim(p_agent_id), '');
    found_markdown text;
    found_summary text;
    found_at timestamptz;
    at timestamptz := coalesce(p_at, now());
begin
    perform mcp.require_user(p_user_id);
    if p_at is null then
        if agent is null and to_regclass('context.user_context') is not null then
            execute 'select context_markdown, summary, refreshed_at from context.user_context where user_id = $1'
                into found_markdown, found_summary, found_at using p_user_id;
        elsif agent is not null and to_regclass('context.agent_context') is not null then
            execute 'select context_markdown, summary, refreshed_at from context.agent_context '
                    'where user_id = $1 and agent_id = $2'
                into found_markdown, found_summary, found_at using p_user_id, agent;
        end if;
        if found_at is not null and not exists (
            select from signals.dirty_users d where d.user_id = p_user_id and d.since > found_at
        ) then
            return query select found_markdown, found_summary, found_at, 'view'::text;
            return;
        end if;
    end if;
    if agent is null then
        select a.context_markdown into found_markdown from context.user_context_as_of(p_user_id, at) a;
    else
        select a.context_markdown into found_markdown from context.agent_context_as_of(p_user_id, agent, at) a;
    end if;
    return query select coalesce(found_markdown, signals.context_block(null)), null::text, at,
                        case when p_at is null then 'live' else 'as_of' end;
end;
$$;

-- The user's active signals nearest to an embedding (the configured embedding model's, as text), the most
-- similar first: the profile's, and one agent's when p_agent_id is given. evidence_at: when the user last
-- stated it (last_seen_at).
create or replace function mcp.search_signals(p_user_id text, p_embedding text, p_limit integer default 10,
                                              p_agent_id text default null)
returns table (signal_id uuid, content text, kind text, tier text, origin text, agent_id text,
               evidence_at timestamptz, similarity double precision)
language plpgsql stable security definer set search_path = pg_catalog, public, pg_temp as $$
#variable_conflict use_column
declare
    agent text := nullif(btrim(p_agent_id), '');
    probe vector := p_embedding::vector;
begin
    perform mcp.require_user(p_user_id);
    if p_limit is null or p_limit < 1 or p_limit > 50 then
        raise exception 'limit must be between 1 and 50, not %', p_limit using errcode = 'invalid_parameter_value';
    end if;
    return query
    select s.signal_id, s.content, s.kind, s.tier, s.origin, s.agent_id, s.last_seen_at,
           1 - (s.embedding <=> probe)
    from signals.signals s
    where s.user_id = p_user_id and s.status = 'active' and s.embedding is not null
      and (s.agent_id is null or s.agent_id = agent)
    order by s.embedding <=> probe, s.signal_id
    limit p_limit;
end;
$$;

-- What an agent was asked to remember, after the server's validation and screens (core/validate.py,
-- core/screening/): p_held_reason null, accepted: the user's own signal (signals.add_signal), embedded; else
-- held for review as a manual signal of status pending with that reason, in no view until a reviewer
-- approves it (signals.review_approve). A text the user deleted or a reviewer rejected is refused: an agent
-- never brings it back (the user can, with signals.add_signal). A text already held stays held. Returns the
-- signal and its status.
create or replace function mcp.remember(p_user_id text, p_content text, p_kind text, p_agent_id text,
                                        p_embedding text, p_held_reason text)
returns table (signal_id uuid, status text)
language plpgsql security definer set search_path = pg_catalog, public, pg_temp as $$
#variable_conflict use_column
declare
    agent text := nullif(btrim(p_agent_id), '');
    clean text := btrim(regexp_replace(coalesce(p_content, ''), E'\\s+', ' ', 'g'));
    key text := signals.normalize_text(coalesce(p_content, ''));
    max_chars integer := signals.limit('content_max_chars');
    found signals.signals;
    new_id uuid;
begin
    perform mcp.require_user(p_user_id);
    if key = '' or length(clean) > max_chars then
        raise exception 'a signal needs between 1 and % characters of text', max_chars
            using errcode = 'invalid_parameter_value';
    end if;
    if coalesce(p_kind, '') !~ '^[a-z_][a-z0-9_]*$' then
        raise exception 'kind % is not a lower-case identifier', p_kind using errcode = 'invalid_parameter_value';
    end if;
    perform signals.lock_user(p_user_id);
    select * into found from signals.signals s
    where s.user_id = p_user_id and s.normalized = key and s.agent_id is not distinct from agent
      and s.status in ('deleted', 'rejected')
      and not exists (select from signals.signals m where m.user_id = p_user_id and m.normalized = key
                      and m.agent_id is not distinct from agent and m.status = 'active')
    order by s.origin = 'manual' desc
    limit 1;
    if found.signal_id is not null then
        raise exception 'user % % this text: an agent cannot bring it back', p_user_id,
            case found.status when 'deleted' then 'deleted' else 'had a reviewer reject' end
            using errcode = 'object_not_in_prerequisite_state',
                  hint = 'only the user can add it again (`agent-signals signals add`, signals.add_signal)';
    end if;
    select * into found from signals.signals s
    where s.user_id = p_user_id and s.origin = 'manual' and s.normalized = key
      and s.agent_id is not distinct from agent and s.status in ('active', 'pending')
    for update;
    if found.signal_id is not null then  -- already the user's, or already waiting for review
        return query select found.signal_id, found.status;
        return;
    end if;
    if p_held_reason is null then
        new_id := signals.add_signal(p_user_id, clean, p_kind, agent);
    else
        insert into signals.signals (signal_id, user_id, content, normalized, kind, tier, origin, status,
                                     mention_count, first_seen_at, last_seen_at, agent_id, review_reason)
        values (gen_random_uuid(), p_user_id, clean, key, p_kind, 'core', 'manual', 'pending', 1, now(), now(),
                agent, p_held_reason)
        returning signals.signal_id into new_id;
        perform signals.log_user_event(new_id, p_user_id, 'create', null,
            (select to_jsonb(s) - 'embedding' from signals.signals s where s.signal_id = new_id));
    end if;
    if p_embedding is not null then
        update signals.signals s set embedding = p_embedding::vector
        where s.signal_id = new_id and s.embedding is null;
    end if;
    delete from signals.summaries m
    where m.user_id = p_user_id and m.fingerprint is distinct from signals.fingerprint(p_user_id);
    return query select s.signal_id, s.status from signals.signals s where s.signal_id = new_id;
end;
$$;

-- A tombstone, as signals.delete_signal (the user's delete): the signal leaves every view now (the user's
-- rows of the context views go with it, until the next refresh rebuilds them: mcp.get_context renders the
-- block meanwhile) and the pipeline never learns its text again. p_agents: the agents the caller may change
-- the signals of (null: any, the profile included).
create or replace function mcp.forget(p_user_id text, p_signal_id uuid, p_agents text[] default null)
returns void
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    found signals.signals;
begin
    perform mcp.require_user(p_user_id);
    if p_agents is not null then
        select * into found from signals.signals s where s.signal_id = p_signal_id and s.user_id = p_user_id;
        if found.signal_id is not null and (found.agent_id is null or not found.agent_id = any(p_agents)) then
            raise exception 'signal % is not of an agent this caller may change', p_signal_id
                using errcode = 'insufficient_privilege',
                      hint = 'its token is limited to the agents ' || array_to_string(p_agents, ', ');
        end if;
    end if;
    perform signals.delete_signal(p_user_id, p_signal_id);
    delete from signals.summaries m
    where m.user_id = p_user_id and m.fingerprint is distinct from signals.fingerprint(p_user_id);
    if to_regclass('context.user_signals') is not null then
        execute 'delete from context.user_signals where user_id = $1' using p_user_id;
    end if;
    if to_regclass('context.user_context') is not null then
        execute 'delete from context.user_context where user_id = $1' using p_user_id;
    end if;
    if to_regclass('context.agent_context') is not null then
        execute 'delete from context.agent_context where user_id = $1' using p_user_id;
    end if;
end;
$$;

alter function mcp.require_user(text) owner to agent_signals_pipeline;
alter function mcp.get_context(text, text, timestamptz) owner to agent_signals_user_paths;
alter function mcp.search_signals(text, text, integer, text) owner to agent_signals_user_paths;
alter function mcp.remember(text, text, text, text, text, text) owner to agent_signals_user_paths;
alter function mcp.forget(text, uuid, text[]) owner to agent_signals_user_paths;
revoke execute on function mcp.require_user(text), mcp.get_context(text, text, timestamptz),
    mcp.search_signals(text, text, integer, text), mcp.remember(text, text, text, text, text, text),
    mcp.forget(text, uuid, text[]) from public;
grant execute on function mcp.require_user(text) to agent_signals_user_paths;
grant execute on function mcp.get_context(text, text, timestamptz), mcp.search_signals(text, text, integer, text),
    mcp.remember(text, text, text, text, text, text), mcp.forget(text, uuid, text[]) to agent_signals_mcp;
