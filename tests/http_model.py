"""The tests' models behind the package's loopback OpenAI-compatible server (adapters/loopback.py), reached
through litellm's real provider path (`openai/<name>` with OPENAI_API_BASE / OPENAI_BASE_URL, or
AGENT_SIGNALS_API_BASE, pointing there): helpers that build the usual answers (errors, rate limits, slow and
cut answers, embeddings), and `fooled`, a model that believes everything it reads."""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_signals.adapters.loopback import LoopbackModel as HttpModel
from agent_signals.adapters.loopback import Received, Reply, Respond, chat, error, serve
from agent_signals.core.prompting.prompts import unfence

__all__ = ["HttpModel", "Received", "Reply", "Respond", "chat", "error", "serve"]


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
