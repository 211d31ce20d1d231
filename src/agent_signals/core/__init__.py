"""Pure functions, no I/O: answers and their schemas, prompt rendering, extraction batching, validation, screening, text normalisation. Imports nothing of the project but config and errors."""
