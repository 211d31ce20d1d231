-- The columns of a table, in order.
select a.attname
from pg_attribute a
where a.attrelid = %(relation)s::regclass and a.attnum > 0 and not a.attisdropped
order by a.attnum
