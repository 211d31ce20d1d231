"""Prefect flows: thin orchestration of the functions in agent_signals."""
