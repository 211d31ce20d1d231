-- The shared limits of src/agent_signals/limits.py (written by `migrate`, read through signals.limit(name));
-- a limit no longer in that module goes.
with given as (
    select * from unnest(%(names)s::text[], %(values)s::integer[]) as g (name, value)
),
upserted as (
    insert into signals.limits (name, value)
    select name, value from given
    on conflict (name) do update set value = excluded.value
    where signals.limits.value is distinct from excluded.value
)
delete from signals.limits where name <> all(%(names)s::text[])
