-- The columns of a view (or table) to export, in order, with their type's name in pg_type ('int4',
-- 'timestamptz', 'numeric', 'vector', ...); no rows when the relation does not exist (yet).
select a.attname as name, t.typname as type
from pg_attribute a
join pg_type t on t.oid = a.atttypid
where a.attrelid = to_regclass(%(relation)s) and a.attnum > 0 and not a.attisdropped
order by a.attnum
