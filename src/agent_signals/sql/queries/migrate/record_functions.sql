-- The function files of sql/functions/ just applied, with their checksums; a file no longer shipped goes.
with given as (
    select * from unnest(%(names)s::text[], %(checksums)s::text[]) as g (name, checksum)
),
upserted as (
    insert into ops.schema_functions (name, checksum)
    select name, checksum from given
    on conflict (name) do update set checksum = excluded.checksum, applied_at = now()
)
delete from ops.schema_functions where name <> all(%(names)s::text[])
