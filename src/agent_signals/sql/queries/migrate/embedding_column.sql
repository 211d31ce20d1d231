-- The declared type of signals.signals.embedding, e.g. 'vector(256)' ('vector' before its dimension is set).
select format_type(a.atttypid, a.atttypmod) as declared,
       (select count(*) from signals.signals where embedding is not null) as embedded
from pg_attribute a
where a.attrelid = 'signals.signals'::regclass and a.attname = 'embedding' and not a.attisdropped
