"""A recorded model: the prompts a run sends, kept as files, and the answers a capable model wrote to them,
kept beside them, replayed over HTTP by the loopback server (adapters/loopback.py) through litellm's
`openai/` provider, the path a real provider's answers take.

A directory of recordings holds, per prompt, `<key>.prompt.json` (the request's messages and response
format, and the prompt family), `<key>.prompt.txt` (the same for a reader: the system message, then the
user message) and, once answered, `<key>.answer.json` (the answer's text, exactly as the model wrote it).
A `RECORDED.md` says what wrote the answers. Recording again over answered prompts replays their answers and
keeps the prompts they lead to (a summary to write, a cap to reconcile): record until nothing new is kept.

The key is a hash of what the model reads: every message and the response format. A wording change of a
prompt changes the key, so a replay meets no answer for it and says so, instead of answering with stale
text. The one part left out of the key is the day a prompt says today is (extract/v1): it changes every
day and no answer reads it.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agent_signals.adapters.loopback import LoopbackModel, chat, error, serve
from agent_signals.errors import AgentSignalsError

MODEL = "openai/recorded"  # the litellm model name a recorded run uses (the server ignores it)
API_KEY = "sk-recorded"  # the loopback server checks no key; litellm's openai provider needs one
_TODAY = re.compile(r"Today is \d{4}-\d{2}-\d{2}\.")
# What a recording run answers to each family: nothing found (no signal, so no reconcile or summary call)
_EMPTY = {"extract": {"actions": [{"action": "skip"}]}, "reconcile": {"decisions": []}}


class RecordingError(AgentSignalsError):
    """A directory of recordings that cannot be written or read."""


def prompt_key(body: dict) -> str:
    """The key of a chat request: a hash of its messages and response format (not of the model's name)."""
    messages = [
        {"role": m.get("role"), "content": _TODAY.sub("Today is <day>.", str(m.get("content", "")))}
        for m in body.get("messages") or []
    ]
    canonical = json.dumps(
        {"messages": messages, "response_format": body.get("response_format")},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


def family_of(body: dict) -> str:
    """The prompt family a request asks (extract, reconcile, summarize): its response format's name, else
    what its user message opens with."""
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    if name := schema.get("name"):
        return str(name).removesuffix("_answer")
    user = next(
        (str(m.get("content", "")) for m in body.get("messages") or [] if m.get("role") == "user"), ""
    )
    if "<messages>" in user:
        return "extract"
    return "summarize" if user.startswith("<signals>") else "reconcile"


@dataclass
class Recordings:
    """A directory of recorded prompts and answers, and what a run asked of it."""

    root: Path
    asked: list[str] = field(default_factory=list)  # the keys of the prompts a run sent, in order
    missing: list[str] = field(default_factory=list)  # replay: the keys no answer was recorded for
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def prompt_path(self, key: str) -> Path:
        return self.root / f"{key}.prompt.json"

    def answer_path(self, key: str) -> Path:
        return self.root / f"{key}.answer.json"

    def record(self, path: str, body: dict) -> tuple[int, dict]:
        """The recorded answer when there is one (so that a run records the prompts its answers lead to: a
        summary, a reconciliation); else keep the prompt and answer as a model that found nothing."""
        key, family = prompt_key(body), family_of(body)
        if self.answer_path(key).exists():
            return self.replay(path, body)
        messages = body.get("messages") or []
        kept = {"key": key, "family": family, "messages": messages,
                "response_format": body.get("response_format")}  # fmt: skip
        text = "\n\n".join(f"=== {m.get('role')} ===\n{m.get('content', '')}" for m in messages)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.prompt_path(key).write_text(json.dumps(kept, ensure_ascii=False, indent=1), encoding="utf-8")
            (self.root / f"{key}.prompt.txt").write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            return error(500, f"cannot record the prompt in {self.root}: {exc}", kind="server_error")
        with self._lock:
            self.asked.append(key)
        return chat(json.dumps(_EMPTY.get(family, {"summary": "The user."})))

    def replay(self, _path: str, body: dict) -> tuple[int, dict]:
        """The recorded answer to the prompt, or a 404 that names the prompt no answer was recorded for."""
        key = prompt_key(body)
        with self._lock:
            self.asked.append(key)
        try:
            answer = self.answer_path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            with self._lock:
                self.missing.append(key)
            return error(404, f"no recorded answer for prompt {key}", code="not_recorded")
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages") or []) // 4 + 1
        return chat(answer, prompt_tokens=prompt_tokens, completion_tokens=len(answer) // 4 + 1)

    def unanswered(self) -> list[str]:
        """The recorded prompts that have no answer yet."""
        return sorted(
            p.name.removesuffix(".prompt.json")
            for p in self.root.glob("*.prompt.json")
            if not self.answer_path(p.name.removesuffix(".prompt.json")).exists()
        )


@contextmanager
def recorded_model(root: Path, *, replay: bool) -> Iterator[tuple[Recordings, LoopbackModel]]:
    """The loopback server answering from (replay) or recording into (not replay) the directory `root`."""
    if replay and not root.is_dir():
        raise RecordingError(
            f"{root}: no such directory of recordings",
            hint="record one with `agent-signals eval --record DIR`",
        )
    recordings = Recordings(root)
    with serve(recordings.replay if replay else recordings.record) as server:
        yield recordings, server
