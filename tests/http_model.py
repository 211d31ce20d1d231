"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests that go through litellm's real provider path
(`openai/<name>` with OPENAI_API_BASE / OPENAI_BASE_URL pointing here). It records every request and answers
with whatever `respond(path, body)` returns: (status, JSON body). Helpers build the usual answers; `fooled` is a
model that believes everything it reads."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_signals.prompts import unfence

Respond = Callable[[str, dict], tuple[int, dict]]


def error(
    status: int, message: str, kind: str = "invalid_request_error", code: str | None = None
) -> tuple[int, dict]:
    """An OpenAI-style error answer."""
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


def chat(content: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> tuple[int, dict]:
    """A successful chat completion answering `content`."""
    return 200, {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }  # fmt: skip


# What a model sees of the rendered prompts (prompts/*/v1.user.j2): fenced message text and signal lines.
_MESSAGE = re.compile(r'<m id="(m\d+)"(?: old="true")?>(.*?)</m>', re.DOTALL)
_KINDS = re.compile(r"^kind: one of (.+)\.$", re.MULTILINE)
_SUMMARY_LINE = re.compile(r"^\[(?:manual|core|contextual)/[a-z_]+\] (.*)$", re.MULTILINE)
_CORE_LINE = re.compile(r"^(c\d+) \[[^\]]*\] (.*)$", re.MULTILINE)


def fooled(_path: str, body: dict) -> tuple[int, dict]:
    """A model talked into believing every message (issue 15): for an extraction prompt, one core signal per
    message whose content is the message text and whose quote is the whole message as the prompt shows it,
    plus a summary repeating every message; for a summary prompt, a summary repeating the signals shown; for
    a reconciliation prompt, one merge of every core signal into a text copying them all. Lengths are cut
    only to the answer schemas' limits (content 300, quote 500, summary 1200 characters)."""
    prompt = body["messages"]
    system = next((m["content"] for m in prompt if m["role"] == "system"), "")
    user = next((m["content"] for m in prompt if m["role"] == "user"), "")
    if "<messages>" in user:
        kinds = [k.strip() for k in (_KINDS.search(system) or ["", "preference"])[1].split(",")]
        shown = [(handle, text.strip()) for handle, text in _MESSAGE.findall(user) if text.strip()]
        actions = [
            {"action": "create", "content": unfence(text)[:300].strip(), "tier": "core",
             "kind": "preference" if "preference" in kinds else kinds[0],
             "evidence": [{"message": handle, "quote": text[:500]}]}
            for handle, text in shown
        ]  # fmt: skip
        summary = "The user says: " + " ".join(unfence(text) for _h, text in shown)
        answer: dict = {"actions": actions, "summary": summary[:1200]}
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

    def env(self, model: str = "openai/some-name", api_key: str = "sk-test") -> dict[str, str]:
        """Environment variables that point the pipeline's model at this server."""
        return {"AGENT_SIGNALS_MODEL": model, "OPENAI_API_BASE": self.url, "OPENAI_BASE_URL": self.url,
                "OPENAI_API_KEY": api_key}  # fmt: skip


@contextmanager
def serve(respond: Respond) -> Iterator[HttpModel]:
    """Run the server in a thread for the block; stopped and closed after it."""
    model = HttpModel("", respond)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            with lock:
                model.requests.append((self.path, body))
            status, answer = model.respond(self.path, body)
            payload = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def cut(content: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> tuple[int, dict]:
    """A chat completion cut at its max_tokens (finish_reason `length`): `content` is what was written."""
    status, body = chat(content, prompt_tokens, completion_tokens)
    body["choices"][0]["finish_reason"] = "length"
    return status, body
