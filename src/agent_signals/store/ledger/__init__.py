"""The operations ledger (schema ops): the runs and their shards, the model calls they made, the run
report, the provider batches a run sent, and the messages set aside after failed attempts."""
