-- Review (issue 31, point 4): what no deterministic check can decide is held for a person to review.
--
-- A held candidate (core/screen.py: outcome `hold`) is written by the write path like any other (its
-- deterministic id, embedding, evidence with quotes redacted, a `create` event), with status `pending` and
-- the reason it was held (review_reason). A pending signal is in no view, summary, fingerprint, cap count,
-- decay, prompt, as-of rebuild or export: every reader of signals.signals reads `active` (or names the
-- statuses it reads), so neither `pending` nor `rejected` reaches what agents read. A later candidate that
-- restates a pending signal adds its evidence and leaves it pending; one that restates a rejected signal is
-- not written (a rejected text is a tombstone, as a deleted one is).
--
-- An application's own UI (or `agent-signals review approve|reject`) decides through the two functions
-- below: signals.review_approve makes a pending signal active, signals.review_reject makes it rejected, each
-- with one signals.events row (action review_approve / review_reject, actor: who decided, before and after:
-- the row). Approving a new version of a fact (a held update: `supersedes` names the version it replaces)
-- also ends that version, as the update would have, with a `review_end` event.

alter table signals.signals drop constraint signals_status_check;
alter table signals.signals add constraint signals_status_check
    check (status in ('active', 'archived', 'ended', 'merged', 'deleted', 'retracted', 'pending', 'rejected'));

alter table signals.signals add column review_reason text;
comment on column signals.signals.review_reason is
    'why the candidate was held for review (screen.py), redacted; null: it never was';

-- only the pipeline's candidates are held: the user's own signals are theirs
alter table signals.signals add constraint signals_review_origin_check
    check (status not in ('pending', 'rejected') or origin = 'inferred');

-- the review queue, oldest first (agent-signals review list, an application's review page)
create index signals_pending_idx on signals.signals (created_at, signal_id) where status = 'pending';

-- the write path stages a held candidate with its reason (apply_create.sql writes it `pending`)
alter table staging.apply_new_signals add column review_reason text;

-- A review's events name who decided (p_actor: a reviewer's name or id, 'reviewer' by default); every other
-- event keeps the closed set of actors.
alter table signals.events drop constraint events_actor_check;
alter table signals.events add constraint events_actor_check
    check (actor in ('pipeline', 'reconciler', 'user')
           or (action in ('review_approve', 'review_reject', 'review_end') and run_id is null
               and btrim(actor) <> ''));

-- A pending signal of any user, locked under its user's write lock (the pipeline's lock_users.sql takes the
-- same one), or an error that says why it cannot be reviewed.
create function signals.review_take(p_signal_id uuid, p_actor text) returns signals.signals
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
create function signals.review_approve(p_signal_id uuid, p_actor text default 'reviewer')
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
    if new_status = 'active' and held.tier = 'core' then
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
create function signals.review_reject(p_signal_id uuid, p_actor text default 'reviewer')
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

-- They run as the user paths' role (m004: it reads, inserts and updates signals and inserts events; it owns
-- no table), like the user's own functions; the application may call them (m007's grants).
alter function signals.review_take(uuid, text) owner to agent_signals_user_paths;
alter function signals.review_approve(uuid, text) owner to agent_signals_user_paths;
alter function signals.review_reject(uuid, text) owner to agent_signals_user_paths;
revoke execute on function signals.review_take(uuid, text), signals.review_approve(uuid, text),
    signals.review_reject(uuid, text) from public;
grant execute on function signals.review_take(uuid, text) to agent_signals_user_paths;
grant execute on function signals.review_approve(uuid, text), signals.review_reject(uuid, text)
    to agent_signals_app;
