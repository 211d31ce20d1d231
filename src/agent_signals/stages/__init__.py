"""What the flows call, one module per stage of the run's diagram (docs/architecture.md); the run's own
plumbing is in run/, what people do to signals outside a run in by_hand/."""
