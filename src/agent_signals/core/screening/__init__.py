"""Screening of what the model writes before it is stored: secrets, personal data, special categories,
instructions to the agent, the shape of a signal, and the folded forms of a text they read."""
