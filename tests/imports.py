"""A command-line process run under `python -X importtime`, which lists on stderr every module the process
imported: what a test reads to know that a command never imported Prefect or litellm (issue 33)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = frozenset({"prefect", "litellm"})  # about 1 s and 3 s of imports; neither when settings fail or idle
BANNERS = ("Give Feedback", "Get Help", "Provider List", "LiteLLM.Info", "turn_on_debug")


@dataclass(frozen=True)
class Traced:
    returncode: int
    imported: frozenset[str]  # top-level packages
    stdout: str
    stderr: str  # without the import times

    @property
    def heavy(self) -> set[str]:
        return set(self.imported & HEAVY)


def traced(*args: str, env: dict[str, str], timeout: float = 300) -> Traced:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_signals", *args],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout,
    )  # fmt: skip
    imported, said = set(), []
    for line in done.stderr.splitlines():
        if line.startswith("import time:"):
            imported.add(line.rpartition("|")[2].strip().split(".")[0])
        else:
            said.append(line)
    return Traced(done.returncode, frozenset(imported), done.stdout, "\n".join(said))
