"""Imported by the server the run's worker processes fork from (workers.py: multiprocessing's forkserver):
the screens' matchers, word lists and dictionaries are loaded and compiled here once, and every worker
forked after shares them instead of loading its own.

Then frozen (gc.freeze): the garbage collector of a worker never walks those million objects again (a full
collection took about a second each) nor writes to their pages, which stay shared with this server."""

import gc

from agent_signals.core import user_work

user_work.warm()
gc.collect()
gc.freeze()
