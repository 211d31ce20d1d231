-- Forgetting a user: everything derived about them goes (signals of both origins, evidence, events,
-- summaries, quarantine, failures with raw answers, rejected actions, set-aside messages, batch requests,
-- view rows); one row in ops.forgotten says it happened. Their conversations' watermarks stay, so old
-- messages are not learned again.
create or replace function signals.forget_user(p_user_id text)
returns integer
language plpgsql security definer set search_path = pg_catalog, pg_temp as $$
declare
    removed integer;
begin
    perform signals.lock_user(p_user_id);
    perform set_config('agent_signals.forgetting', 'on', true);
    delete from signals.evidence e using signals.signals s
    where e.signal_id = s.signal_id and s.user_id = p_user_id;
    delete from signals.events where user_id = p_user_id;
    -- merged signals point at their survivors: clear the pointers before the rows go
    update signals.signals set merged_into = null where user_id = p_user_id and merged_into is not null;
    delete from signals.signals where user_id = p_user_id;
    get diagnostics removed = row_count;
    delete from signals.summaries where user_id = p_user_id;
    delete from signals.dirty_users where user_id = p_user_id;
    delete from ops.failures where user_id = p_user_id;
    delete from ops.quarantine where user_id = p_user_id;
    delete from ops.touched_users where user_id = p_user_id;
    if to_regclass('context.user_signals') is not null then
        execute 'delete from context.user_signals where user_id = $1' using p_user_id;
    end if;
    if to_regclass('context.user_context') is not null then
        execute 'delete from context.user_context where user_id = $1' using p_user_id;
    end if;
    perform set_config('agent_signals.forgetting', 'off', true);
    insert into ops.forgotten (user_id, signals) values (p_user_id, removed);
    return removed;
end;
$$;

alter function signals.forget_user(text) owner to agent_signals_user_paths;
revoke execute on function signals.forget_user(text) from public;
grant execute on function signals.forget_user(text) to agent_signals_app;

-- The tables forget_user does not name are cleared by triggers on ops.forgotten: an answer that comes back
-- for a forgotten user later matches no batch request and is never read.
create or replace function ops.forget_rejections_and_set_aside() returns trigger
language plpgsql as $$
begin
    delete from ops.rejected_actions where user_id = new.user_id;
    delete from ops.set_aside where user_id = new.user_id;
    return new;
end;
$$;

create or replace trigger forgotten_clears_rejections after insert on ops.forgotten
    for each row execute function ops.forget_rejections_and_set_aside();

create or replace function ops.forget_batch_requests() returns trigger
language plpgsql as $$
begin
    delete from ops.batch_requests where user_id = new.user_id;
    return new;
end;
$$;

create or replace trigger forgotten_clears_batch_requests after insert on ops.forgotten
    for each row execute function ops.forget_batch_requests();

create or replace function ops.forget_agent_context() returns trigger
language plpgsql as $$
begin
    if to_regclass('context.agent_context') is not null then
        execute 'delete from context.agent_context where user_id = $1' using new.user_id;
    end if;
    return new;
end;
$$;

create or replace trigger forgotten_clears_agent_context after insert on ops.forgotten
    for each row execute function ops.forget_agent_context();
