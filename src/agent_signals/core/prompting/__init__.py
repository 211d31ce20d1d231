"""What the model is asked and what it answers: the prompt templates and their rendering, a user's
extraction calls (their messages and known signals cut to the prompt budget), the typed answers, and the
summary written without a model."""
