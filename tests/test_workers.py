"""The run's CPU work in worker processes (stages/run/workers.py, core/user_work.py): a run with them
writes what a run without them writes, figures included; the work happens in other processes, the prompts
the model waits for before the rest, and a worker that dies fails only its work."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import psycopg
import pytest

from agent_signals.config import Settings
from agent_signals.core.prompting.prompts import parse_extract_prompt
from agent_signals.core.text import clean
from agent_signals.stages.run.workers import LATER, SOON, Workers, worker_count
from tests.builders import conversation, load_conversations
from tests.conftest import SCRIPTED_SETTINGS
from tests.hostile import load_corpus
from tests.test_crash import run_on

MODEL = "offline/rules"
WRITTEN = {
    "signals": """select user_id, content, tier, kind, status, origin, mention_count, agent_id
                  from signals.signals order by user_id, content, kind""",
    "evidence": """select s.user_id, s.content, e.quote from signals.evidence e
                   join signals.signals s using (signal_id) order by 1, 2, 3""",
    "quarantine": "select user_id, content, reason from ops.quarantine order by 1, 2, 3",
    "rejected": "select user_id, stage, reason from ops.rejected_actions order by 1, 2, 3",
    "failures": "select user_id, stage, error_kind from ops.failures order by 1, 2, 3",
}


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_a_run_with_worker_processes_writes_what_a_run_in_one_process_writes(new_database, scripted):
    # a fooled model: each message of the hostile corpus stated as a core signal quoting it whole, so that
    # the screens decide (secrets, instructions, special categories, the controls kept)
    items = [item for item in load_corpus("dev")[::6] if item.signal]
    statements = {item.text: item.signal for item in items}

    def copy(prompt) -> str:
        shown = parse_extract_prompt(prompt)[0][0].text  # the message as the prompt shows it (cleaned)
        said = next((s for text, s in statements.items() if clean(text) == shown), "Works as a pilot")
        create = {"action": "create", "content": said, "tier": "core", "kind": "role",
                  "evidence": [{"message": "m1", "quote": shown}]}  # fmt: skip
        return json.dumps({"actions": [create]})

    scripted.script = copy
    urls = {workers: new_database() for workers in (0, 2)}
    for url in urls.values():
        with psycopg.connect(url, autocommit=True) as conn:
            load_conversations(
                conn,
                Settings(database_url=url),
                *(conversation(f"h{i}", f"h{i:03d}", [("user", item.text)]) for i, item in enumerate(items)),
            )
    summaries = {workers: run_on(url, **SCRIPTED_SETTINGS, workers=workers) for workers, url in urls.items()}
    written = {}
    for workers, url in urls.items():
        with psycopg.connect(url, autocommit=True) as conn:
            written[workers] = {name: conn.execute(sql).fetchall() for name, sql in WRITTEN.items()}
    assert written[2] == written[0]
    assert written[0]["signals"] and written[0]["quarantine"] and written[0]["rejected"]  # all screened
    assert summaries[2]["actions"] == summaries[0]["actions"] and summaries[2]["users"] == len(items)


@pytest.mark.unit
def test_the_work_is_done_in_other_processes_and_in_this_one_with_none():
    async def pids(workers: Workers) -> set[int]:
        try:
            return set(await asyncio.gather(*(workers.run(os.getpid) for _ in range(8))))
        finally:
            workers.close()

    assert asyncio.run(pids(Workers(0, MODEL))) == {os.getpid()}
    found = asyncio.run(pids(Workers(2, MODEL)))
    assert os.getpid() not in found and 1 <= len(found) <= 2


@pytest.mark.unit
def test_the_prompts_the_model_waits_for_go_before_the_other_waiting_work(tmp_path: Path):
    go = tmp_path / "go"

    async def order() -> list[str]:
        workers = Workers(1, MODEL)
        workers.begin()
        workers.wait_started()
        done: list[str] = []

        async def one(name: str, priority: int) -> None:
            await workers._run(priority, _wait_for, str(go))
            done.append(name)

        try:
            busy = asyncio.ensure_future(one("busy", SOON))  # the one process, until `go` exists
            while not workers._busy:
                await asyncio.sleep(0)
            later = asyncio.ensure_future(one("later", LATER))
            soon = asyncio.ensure_future(one("soon", SOON))
            while len(workers._waiting) < 2:
                await asyncio.sleep(0)
            go.touch()
            await asyncio.gather(busy, soon, later)
            return done
        finally:
            workers.close()

    assert asyncio.run(order()) == ["busy", "soon", "later"]


@pytest.mark.unit
def test_a_worker_that_dies_fails_its_work_only_and_the_pool_starts_again():
    from concurrent.futures.process import BrokenProcessPool

    async def go() -> int:
        workers = Workers(1, MODEL)
        try:
            with pytest.raises(BrokenProcessPool):
                await workers.run(os._exit, 3)
            return await workers.run(os.getpid)
        finally:
            workers.close()

    assert asyncio.run(go()) != os.getpid()


@pytest.mark.unit
def test_a_job_cancelled_while_the_pool_starts_leaves_the_start_to_the_others():
    """A run's job cancelled while it waits for the pool (a sibling failed, the run ended) must not cancel
    the pool's start: the next run in this process was once handed a cancelled pool and crashed."""

    async def go() -> int:
        workers = Workers(1, MODEL)
        try:
            first = asyncio.ensure_future(workers.run(os.getpid))
            await asyncio.sleep(0.01)  # it waits for the start
            assert not workers._starting.done()
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first
            return await workers.run(os.getpid)
        finally:
            workers.close()

    assert asyncio.run(go()) != os.getpid()


@pytest.mark.unit
def test_work_after_the_run_closed_its_workers_is_done_here_and_starts_no_pool():
    """A straggler of a finished run (a task its failure left running) does its work in this process: a
    pool started for it would outlive the run, with nothing to close it."""

    async def go() -> int:
        workers = Workers(2, MODEL)
        workers.close()
        try:
            return await workers.run(os.getpid) + await workers.run_soon(os.getpid)
        finally:
            assert workers._starting is None

    assert asyncio.run(go()) == 2 * os.getpid()


@pytest.mark.unit
def test_a_worker_s_garbage_collector_leaves_the_loaded_screens_alone():
    """The fork server freezes what it loaded (preload.py): a worker's full collections do not walk the
    screens' million objects (about a second each) nor unshare their pages."""
    import gc

    async def go() -> int:
        workers = Workers(1, MODEL)
        try:
            return await workers.run(gc.get_freeze_count)
        finally:
            workers.close()

    assert asyncio.run(go()) > 500_000


SETTLED = """
import asyncio, gc, sys
from agent_signals.stages.run.workers import Workers
workers = Workers(int(sys.argv[1]), "offline/rules")
before = gc.get_freeze_count()
asyncio.run(workers.run(len, "work"))
first = gc.get_freeze_count()
kept = [[n] for n in range(50_000)]  # a second freeze would take these
asyncio.run(workers.run(len, "more work"))
workers.close()
from agent_signals.core.screening import learned
print(before, first, gc.get_freeze_count(), learned._model.cache_info().currsize == 1)
"""


@pytest.mark.unit
@pytest.mark.parametrize("count", [0, 1])
def test_the_run_s_process_freezes_what_it_loaded_once_as_its_first_work_begins(count):
    """The run's own process freezes what it has loaded as the first users' work begins (its full
    collections walked a million objects, half a second each), once; doing the work itself (no workers),
    it loads the screens first, so that they are frozen too; with workers, it never loads them."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", SETTLED, str(count)], capture_output=True, text=True,
                          timeout=300, check=True)  # fmt: skip
    before, first, again, screens = done.stdout.split()
    assert int(before) == 0 and int(first) > (500_000 if count == 0 else 100_000)
    assert int(again) <= int(first)  # once a process (frozen objects freed since leave the count)
    assert screens == str(count == 0)


@pytest.mark.unit
def test_a_worker_ignores_the_signals_the_run_stops_on():
    async def go() -> tuple[int, int]:
        workers = Workers(1, MODEL)
        try:
            pid = await workers.run(os.getpid)
            os.kill(pid, signal.SIGINT)  # Ctrl-C reaches the whole process group: the run stops its workers
            os.kill(pid, signal.SIGTERM)
            return pid, await workers.run(os.getpid)
        finally:
            workers.close()

    first, again = asyncio.run(go())
    assert first == again


@pytest.mark.unit
def test_the_worker_count_is_the_setting_or_the_cores():
    assert worker_count(Settings(workers=3)) == 3
    assert worker_count(Settings(workers=0)) == 0
    assert worker_count(Settings()) == len(os.sched_getaffinity(0))


def _wait_for(path: str) -> int:
    """In a worker: wait until `path` exists (the test says when)."""
    import time

    while not os.path.exists(path):
        time.sleep(0.01)
    return os.getpid()
