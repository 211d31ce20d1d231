"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests that go through litellm's real provider path
(`openai/<name>` with OPENAI_API_BASE / OPENAI_BASE_URL, or AGENT_SIGNALS_API_BASE, pointing here). It records
every request (path, JSON body, headers, arrival time) and answers with whatever `respond(path, body)` returns:
(status, JSON body), or a Reply that also sets response headers (Retry-After) or a delay before answering (a
socket timeout on the client's side). Helpers build the usual answers; `fooled` is a model that believes
everything it reads."""

from __future__ import annotations

import json
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_signals.core.prompts import unfence


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
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": usage,
    }  # fmt: skip


def embeddings(body: dict, dim: int = 256) -> tuple[int, dict]:
    """A successful embeddings answer for the request `body`: one unit vector per input."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [
        {"object": "embedding", "index": i, "embedding": [1.0] + [0.0] * (dim - 1)} for i in range(len(texts))
    ]
    return 200, {"object": "list", "data": data, "model": "test",
                 "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}}  # fmt: skip


# What a model sees of the rendered prompts (prompts/*/v1.user.j2, extract/v2 with a date on each message):
# fenced message text and signal lines.
_MESSAGE = re.compile(r'<m id="(m\d+)"(?: date="[0-9-]+")?(?: old="true")?>(.*?)</m>', re.DOTALL)
_KINDS = re.compile(r"^kind: one of (.+)\.$", re.MULTILINE)
_SUMMARY_LINE = re.compile(r"^\[(?:manual|core|contextual)/[a-z_]+\] (.*)$", re.MULTILINE)
_CORE_LINE = re.compile(r"^(c\d+) \[[^\]]*\] (.*)$", re.MULTILINE)


def fooled(_path: str, body: dict) -> tuple[int, dict]:
    """A model talked into believing every message (issue 15): for an extraction prompt, one core signal per
    message whose content is the message text and whose quote is the whole message as the prompt shows it,
    plus a summary repeating every message; for a summary prompt, a summary repeating the signals shown; for
    a reconciliation prompt, one merge of every core signal into a text copying them all. Lengths are cut
    only to the answer schemas' limits (content 300, quote 500, summary 1200 characters)."""
    return fooled_by({})(_path, body)


def message_key(text: str) -> str:
    """A message's letters and digits after NFKC, its invisible characters dropped: the same for the text a
    corpus holds and the text a prompt shows of it."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return "".join(c for c in visible.casefold() if c.isalnum() and not 0xE0000 <= ord(c) <= 0xE007F)


def fooled_by(statements: Mapping[str, str]) -> Respond:
    """`fooled`, also writing what a model that follows the prompt's form would store: for a message whose
    key (message_key) `statements` knows, a second core signal with that English third-person statement
    (issue 31: the screens must hold on the statement as well as on the copy), repeated in the summary."""
    known = {message_key(text): statement for text, statement in statements.items()}

    def respond(_path: str, body: dict) -> tuple[int, dict]:
        prompt = body["messages"]
        system = next((m["content"] for m in prompt if m["role"] == "system"), "")
        user = next((m["content"] for m in prompt if m["role"] == "user"), "")
        if "<messages>" in user:
            kinds = [k.strip() for k in (_KINDS.search(system) or ["", "preference"])[1].split(",")]
            kind = "preference" if "preference" in kinds else kinds[0]
            shown = [(handle, text.strip()) for handle, text in _MESSAGE.findall(user) if text.strip()]
            actions, said = [], []
            for handle, text in shown:
                evidence = [{"message": handle, "quote": text[:500]}]
                contents = [unfence(text)[:300].strip()]
                if statement := known.get(message_key(unfence(text))):
                    contents.append(statement[:300].strip())
                said += contents
                actions += [{"action": "create", "content": c, "tier": "core", "kind": kind, "evidence": evidence}
                            for c in contents]  # fmt: skip
            answer: dict = {"actions": actions, "summary": ("The user says: " + " ".join(said))[:1200]}
        elif "<core>" in user:
            core = _CORE_LINE.findall(user.partition("<core>")[2])
            merged = "; ".join(unfence(text) for _h, text in core)[:300].strip()
            answer = {"decisions": [{"action": "merge", "signals": [h for h, _t in core[:20]], "content": merged}]
                      if len(core) > 1 else [{"action": "keep", "signal": h} for h, _t in core]}  # fmt: skip
        elif user.startswith("<signals>"):
            summary = "The user: " + "; ".join(unfence(text) for text in _SUMMARY_LINE.findall(user))
            answer = {"summary": summary[:1200]}
        else:
            return error(400, "not a prompt of this pipeline")
        text = json.dumps(answer, ensure_ascii=False)
        return chat(text, prompt_tokens=len(user) // 4 + 1, completion_tokens=len(text) // 4 + 1)

    return respond


def rate_limited(retry_after: str) -> Reply:
    """A 429 whose Retry-After header asks the client to wait (seconds or an HTTP date)."""
    status, body = error(429, "Rate limit reached, please retry later.", kind="rate_limit_error")
    return Reply(status, body, headers={"Retry-After": retry_after})


def slow(delay_s: float, answer: tuple[int, dict] | None = None) -> Reply:
    """An answer sent only after `delay_s` seconds (a client with a shorter timeout gives up first)."""
    status, body = answer or chat("{}")
    return Reply(status, body, delay_s=delay_s)


def in_turn(*answers: tuple[int, dict] | Reply) -> Respond:
    """Answer each request with the next of `answers`, the last one again after the others ran out."""
    given = iter(range(len(answers)))
    lock = threading.Lock()

    def respond(_path: str, _body: dict) -> tuple[int, dict] | Reply:
        with lock:
            return answers[next(given, len(answers) - 1)]

    return respond


UNAUTHORIZED = error(401, "Incorrect API key provided: sk-test.", code="invalid_api_key")
FORBIDDEN = error(403, "You are not allowed to use this model.", kind="permission_error")
MODEL_NOT_FOUND = error(404, "The model `some-name` does not exist.", code="model_not_found")
BAD_REQUEST = error(400, "Unrecognized request argument supplied: response_format")
SERVER_ERROR = error(500, "The server had an error while processing your request.", kind="server_error")


@dataclass
class HttpModel:
    url: str  # the API base, e.g. http://127.0.0.1:PORT/v1
    respond: Respond
    requests: list[tuple[str, dict]] = field(default_factory=list)  # (path, JSON body) in arrival order
    received: list[Received] = field(default_factory=list)  # the same requests with headers and times

    def env(self, model: str = "openai/some-name", api_key: str = "sk-test") -> dict[str, str]:
        """Environment variables that point the pipeline's model at this server."""
        return {"AGENT_SIGNALS_MODEL": model, "OPENAI_API_BASE": self.url, "OPENAI_BASE_URL": self.url,
                "OPENAI_API_KEY": api_key}  # fmt: skip

    def settings(self, model: str = "openai/some-name", api_key: str = "sk-test") -> dict[str, str]:
        """Settings values that point the pipeline's model at this server (for a run in the test's process;
        env() is for a command-line process)."""
        return {"model": model, "api_base": self.url, "api_key": api_key}


@contextmanager
def serve(respond: Respond) -> Iterator[HttpModel]:
    """Run the server in a thread for the block; stopped and closed after it (delayed answers are dropped)."""
    model = HttpModel("", respond)
    lock = threading.Lock()
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            at = time.monotonic()
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            headers = {name.lower(): value for name, value in self.headers.items()}
            with lock:
                model.requests.append((self.path, body))
                model.received.append(Received(self.path, body, headers, at))
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


@dataclass
class Forward:
    """A respond that passes each request on to another OpenAI-compatible server (`url`, its API base; a real
    model such as tests/llama_server.py's) and keeps every exchange: (request body, status, answer)."""

    url: str
    exchanges: list[tuple[dict, int, dict]] = field(default_factory=list)

    def __call__(self, path: str, body: dict) -> tuple[int, dict]:
        from tests.llama_server import chat

        status, answer = chat(self.url, body) if path.endswith("/chat/completions") else error(404, path)
        self.exchanges.append((body, status, answer))
        return status, answer


def cut(content: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> tuple[int, dict]:
    """A chat completion cut at its max_tokens (finish_reason `length`): `content` is what was written."""
    status, body = chat(content, prompt_tokens, completion_tokens)
    body["choices"][0]["finish_reason"] = "length"
    return status, body
