-- Review: what no deterministic check can decide is held for a person to review. A held candidate is written
-- by the write path with status `pending` and the reason it was held (review_reason); an application's own UI
-- (or `agent-signals review approve|reject`) decides through signals.review_approve and signals.review_reject,
-- each with one signals.events row (action review_approve / review_reject, actor: who decided, before and
-- after: the row). Approving a new version of a fact (a held update: `supersedes` names the version it
-- replaces) also ends that version, as the update would have, with a `review_end` event.

-- A pending signal of any user, locked under its user's write lock (the pipeline's lock_users.sql takes the
-- same one), or an error that says why it cannot be reviewed.
create or replace function signals.review_take(p_signal_id uuid, p_actor text) returns signals.signals
language plpgsql set search_path = pg_catalog, pg_temp as $$
declare
    owner text;
    found signals.signals;
begin
    if coalesce(btrim(p_actor), '') = '' then
        raise exception 'a reviewer is required (p_actor: who decides)' using errcode = 'invalid_parameter_value';
    end if;
    select user_id into owner from signals.signals where signal_id = p_signal_id;
    if owner is null then
        raise exception 'there is no signal %', p_signal_id
            using errcode = 'no_data_found',
                  hint = 'the signals waiting for review are those of status pending';
    end if;
    perform signals.lock_user(owner);
    select * into found from signals.signals where signal_id = p_signal_id for update;
    if found.status <> 'pending' then
        raise exception 'signal % is %, not pending review', p_signal_id, found.status
            using errcode = 'object_not_in_prerequisite_state',
                  hint = 'only a signal of status pending can be approved or rejected';
    end if;
    return found;
end;
$$;

-- Approve: the signal becomes active (ended, if its validity ended meanwhile) and the context views show it
-- from their next refresh of the user (the status change marks the user dirty). The core cap holds as on
-- every write (docs/guarantees.md): a core signal approved when the user already has
-- signals.limit('core_cap') active inferred core signals is approved as contextual ("when in doubt,
-- contextual"; demoted cores are contextual), and the event says so. Returns the signal's status and tier
-- after, and that note (null when its tier is the one it was held with).
create or replace function signals.review_approve(p_signal_id uuid, p_actor text default 'reviewer')
returns table (status text, tier text, note text)
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    held signals.signals := signals.review_take(p_signal_id, p_actor);
    reviewer text := btrim(p_actor);
    old signals.signals;
    ends timestamptz;
    cores integer;
    new_status text;
    new_tier text := held.tier;
    why text;
begin
    -- a new version of a fact: the version it replaces ends where this one begins (apply_validity.sql's end)
    if held.supersedes is not null then
        select * into old from signals.signals s
        where s.signal_id = held.supersedes and s.origin = 'inferred' and s.status in ('active', 'archived')
        for update;
        if old.signal_id is not null then
            ends := greatest(coalesce(held.valid_from, held.last_seen_at), old.valid_from);
            if old.valid_to is null or old.valid_to > ends then
                update signals.signals s
                set valid_to = ends, status = case when ends <= now() then 'ended' else s.status end,
                    updated_at = now()
                where s.signal_id = old.signal_id;
                insert into signals.events (signal_id, user_id, action, actor, before, after)
                select old.signal_id, old.user_id, 'review_end', reviewer, to_jsonb(old) - 'embedding',
                       (to_jsonb(s) - 'embedding') || jsonb_build_object('replaced_by', held.signal_id)
                from signals.signals s where s.signal_id = old.signal_id;
            end if;
        end if;
    end if;
    new_status := case when held.valid_to <= now() then 'ended' else 'active' end;
    if new_status = 'active' and held.tier = 'core' and held.origin = 'inferred' then  -- the cap's signals
        select count(*) into cores from signals.signals s
        where s.user_id = held.user_id and s.origin = 'inferred' and s.tier = 'core' and s.status = 'active';
        if cores >= signals.limit('core_cap') then
            new_tier := 'contextual';
            why := format('the user has %s active inferred core signals, the cap: approved as contextual', cores);
        end if;
    end if;
    update signals.signals s set status = new_status, tier = new_tier, updated_at = now()
    where s.signal_id = held.signal_id;
    insert into signals.events (signal_id, user_id, action, actor, before, after)
    select held.signal_id, held.user_id, 'review_approve', reviewer, to_jsonb(held) - 'embedding',
           (to_jsonb(s) - 'embedding') || coalesce(jsonb_build_object('reason', why), '{}'::jsonb)
    from signals.signals s where s.signal_id = held.signal_id;
    return query select new_status, new_tier, why;
end;
$$;

-- Reject: the signal becomes rejected, a tombstone for its text: in no view, never learned again.
create or replace function signals.review_reject(p_signal_id uuid, p_actor text default 'reviewer')
returns void
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    held signals.signals := signals.review_take(p_signal_id, p_actor);
begin
    update signals.signals s set status = 'rejected', updated_at = now() where s.signal_id = held.signal_id;
    insert into signals.events (signal_id, user_id, action, actor, before, after)
    select held.signal_id, held.user_id, 'review_reject', btrim(p_actor), to_jsonb(held) - 'embedding',
           to_jsonb(s) - 'embedding'
    from signals.signals s where s.signal_id = held.signal_id;
end;
$$;

-- They run as the user paths' role, like the user's own functions; the application may call them.
alter function signals.review_take(uuid, text) owner to agent_signals_user_paths;
alter function signals.review_approve(uuid, text) owner to agent_signals_user_paths;
alter function signals.review_reject(uuid, text) owner to agent_signals_user_paths;
revoke execute on function signals.review_take(uuid, text), signals.review_approve(uuid, text),
    signals.review_reject(uuid, text) from public;
grant execute on function signals.review_take(uuid, text) to agent_signals_user_paths;
grant execute on function signals.review_approve(uuid, text), signals.review_reject(uuid, text)
    to agent_signals_app;
