-- The first statements of an export's transaction: every view read from one snapshot (consistent with each
-- other, however long the export takes), nothing written, timestamps read in UTC.
set transaction isolation level repeatable read, read only;
set local timezone = 'UTC'
