"""`agent-signals load`: conversations imported into the source contract, from the JSON file or from the
flat formats (NDJSON, Parquet)."""
