"""Every SQL call: connections, the source contract, the writer, summaries, embeddings, the user's own
signals, the views' reads; the schema in schema/, the operations ledger in ledger/, imports in loading/."""
