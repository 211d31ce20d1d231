-- The shared limits: one row per limit in signals.limits, written from src/agent_signals/limits.py by
-- `agent-signals db migrate`. SQL reads them by name; an unknown name (or a database not migrated by this
-- code) is an error, never a null that would let every comparison pass.
create or replace function signals.limit(p_name text) returns integer
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
