"""The run the stages share: its context and life (open, close, interrupt), its model calls, its shards,
a user's failure, and provider batch mode (a shard's users sent as one provider batch, watched and
collected by later runs)."""
