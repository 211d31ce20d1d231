"""What the flows call, one module per stage of the run (docs/architecture.md)."""
