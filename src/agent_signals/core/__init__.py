"""Pure functions, no I/O: the write path's vocabulary, one user's outcome, validation, the cap plan, the decay
formula, text normalisation; prompting/ (prompts, a user's extraction calls, the typed answers) and
screening/ (what the model writes, screened before it is stored). Imports nothing of the project but config
and errors."""
