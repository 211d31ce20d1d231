-- Fix the embedding column's dimension (only while no signal is embedded) and index it for cosine search.
alter table signals.signals alter column embedding type vector({dim});
create index if not exists signals_embedding_hnsw on signals.signals using hnsw (embedding vector_cosine_ops);
