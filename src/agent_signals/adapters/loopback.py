"""A small OpenAI-compatible HTTP server on 127.0.0.1, for a model that answers from this process: the recorded
model of `eval --replay` (evaluation/recorded.py) and the tests' fake models. The pipeline reaches it as it
reaches a provider, through litellm's `openai/<name>` provider with `api_base` pointing here, so everything
between the pipeline and the HTTP socket is production's path.

`serve(respond)` runs the server in a thread for a block; `respond(path, body)` returns (status, JSON body)
or a Reply that also sets response headers or a delay. Every request is kept (path, body, headers, time)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    """An answer with transport details: extra response headers, and seconds to wait before answering."""

    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Respond = Callable[[str, dict], "tuple[int, dict] | Reply"]


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    body: dict
    headers: dict[str, str]  # names in lower case
    at: float  # time.monotonic() at arrival


def error(
    status: int, message: str, kind: str = "invalid_request_error", code: str | None = None
) -> tuple[int, dict]:
    """An OpenAI-style error answer."""
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


def chat(
    content: str, prompt_tokens: int = 10, completion_tokens: int = 5, cached_tokens: int | None = None
) -> tuple[int, dict]:
    """A successful chat completion answering `content` (`cached_tokens`: of the prompt's, read from a cache)."""
    usage: dict = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                   "total_tokens": prompt_tokens + completion_tokens}  # fmt: skip
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return 200, {
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0, "model": "loopback",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": usage,
    }  # fmt: skip


@dataclass
class LoopbackModel:
    url: str  # the API base, e.g. http://127.0.0.1:PORT/v1
    respond: Respond
    requests: list[tuple[str, dict]] = field(default_factory=list)  # (path, JSON body) in arrival order
    received: list[Received] = field(default_factory=list)  # the same requests with headers and times
    arrived: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def wait_for_requests(self, count: int, timeout_s: float = 30.0) -> int:
        """Wait until `count` requests have arrived (a client that gave up may have sent one the server has
        not read yet) or `timeout_s` passed; the number that arrived."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.requests) >= count, timeout_s)
            return len(self.requests)

    def env(self, model: str = "openai/some-name", api_key: str = "sk-test") -> dict[str, str]:
        """Environment variables that point the pipeline's model at this server."""
        return {"AGENT_SIGNALS_MODEL": model, "OPENAI_API_BASE": self.url, "OPENAI_BASE_URL": self.url,
                "OPENAI_API_KEY": api_key}  # fmt: skip

    def settings(self, model: str = "openai/some-name", api_key: str = "sk-test") -> dict[str, str]:
        """Settings values that point the pipeline's model at this server (for a run in this process; env()
        is for a command-line process)."""
        return {"model": model, "api_base": self.url, "api_key": api_key}


@contextmanager
def serve(respond: Respond) -> Iterator[LoopbackModel]:
    """Run the server in a thread for the block; stopped and closed after it (delayed answers are dropped)."""
    model = LoopbackModel("", respond)
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            at = time.monotonic()
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            headers = {name.lower(): value for name, value in self.headers.items()}
            with model.arrived:
                model.requests.append((self.path, body))
                model.received.append(Received(self.path, body, headers, at))
                model.arrived.notify_all()
            answer = model.respond(self.path, body)
            reply = answer if isinstance(answer, Reply) else Reply(*answer)
            if reply.delay_s and stopping.wait(reply.delay_s):
                return  # the server is stopping: no answer
            payload = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (a timeout)
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        stopping.set()
        server.shutdown()
        server.server_close()
        thread.join()
