-- Each run rewrites the decay score of every active inferred signal. With room left on each page, those
-- updates are HOT (heap-only: no new entry in any index, the HNSW index on the embedding included)
-- instead of a new version of the row in every index. Applies to pages written from now on.
alter table signals.signals set (fillfactor = 70);
