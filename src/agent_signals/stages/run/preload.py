"""Imported by the server the run's worker processes fork from (workers.py: multiprocessing's forkserver):
the screens' matchers, word lists and dictionaries are loaded and compiled here once, and every worker
forked after shares them instead of loading its own."""

from agent_signals.core import user_work

user_work.warm()
