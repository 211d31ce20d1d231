"""A local server of OpenAI's files and batches endpoints on 127.0.0.1, for the provider batch mode (issue 18)
reached through litellm's real provider path (`litellm.acreate_file`, `acreate_batch`, `aretrieve_batch`,
`afile_content`, `acancel_batch`, `alist_batches` with `custom_llm_provider="openai"` and `api_base`
pointing here).

Uploads are multipart as the OpenAI SDK sends them; a batch's input file is JSONL of requests
({"custom_id", "method", "url", "body"}). A batch stays `in_progress` until the test decides its fate, as a
provider's would over minutes or hours: `finish(batch_id)` answers every request through `respond(body)`
(a (status, JSON body) pair, as tests/http_model.py's helpers build) and writes the output file (status 200)
and the error file (any other status); `expire(batch_id, answered=n)` ends it `expired` with the first n
requests answered and the others in the error file as `batch_expired`, as OpenAI writes them; `fail(batch_id)`
ends it `failed` as a batch whose input did not pass validation (no output, the reasons in `errors`); a
cancel request ends it `cancelled` at once. `fail_creates(n, status)` answers the next n create-batch
requests with that error status (after creating the batch, with `created=True`: a reply lost on the way).
The batches are listed newest first and paged as OpenAI pages them (`limit`, `after`). A direct chat call
(`POST /v1/chat/completions`) is answered through the same `respond(body)`, so one server serves a run's
direct calls too; `offline` is a respond that answers every prompt of this pipeline with the offline model.
Every request is recorded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from urllib.parse import parse_qs, urlsplit

Respond = Callable[[dict], "tuple[int, dict]"]
LIST_LIMIT = 20  # OpenAI's default page size of GET /v1/batches (1 to 100)


@dataclass
class BatchServer:
    respond: Respond
    url: str = ""
    files: dict[str, dict] = field(default_factory=dict)  # id -> file object, with its bytes under "_data"
    batches: dict[str, dict] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    _ids: Iterator[int] = field(default_factory=lambda: count(1))
    auto_finish: bool = False  # a batch is answered the first time it is retrieved
    _lock: threading.RLock = field(default_factory=threading.RLock)
    # (status, created) of the next create-batch requests that fail
    _failing_creates: list[tuple[int, bool]] = field(default_factory=list)

    # what the tests do to a batch

    def finish(self, batch_id: str) -> dict:
        """Answer every request of the batch and end it `completed` (failed requests in its error file)."""
        return self._end(batch_id, "completed", None)

    def expire(self, batch_id: str, answered: int = 0) -> dict:
        """End the batch `expired` after its first `answered` requests (those are in its files); the others
        are in its error file with the code `batch_expired`, as OpenAI writes them."""
        return self._end(batch_id, "expired", answered)

    def fail(self, batch_id: str, message: str = "The batch input file is invalid.") -> dict:
        """End the batch `failed`, as one whose input did not pass validation: no request ran, no output or
        error file, the reason in `errors`."""
        with self._lock:
            batch = self.batches[batch_id]
            errors = [{"code": "invalid_request", "message": message, "param": None, "line": 1}]
            batch.update(status="failed", failed_at=int(time.time()), errors={"object": "list", "data": errors})  # fmt: skip
            return batch

    def fail_creates(self, n: int, status: int, created: bool = False) -> None:
        """Answer the next `n` create-batch requests with the error `status`; with `created`, the batch is
        created first (the provider made it, its answer was lost), so a retry must find it, not make another."""
        with self._lock:
            self._failing_creates.extend([(status, created)] * n)

    def _end(self, batch_id: str, status: str, answered: int | None) -> dict:
        with self._lock:
            batch = self.batches[batch_id]
            lines = self.files[batch["input_file_id"]]["_data"].decode().splitlines()
            requests = [json.loads(line) for line in lines if line.strip()]
            output, errors = [], []
            for i, request in enumerate(requests):
                line: dict = {"id": f"batch_req_{next(self._ids)}", "custom_id": request["custom_id"]}
                if answered is not None and i >= answered:
                    line.update(response=None, error={"code": "batch_expired", "message": "This request could "
                                "not be executed before the completion window expired."})  # fmt: skip
                    errors.append(json.dumps(line))
                    continue
                code, body = self.respond(request["body"])
                line.update(error=None, response={"status_code": code, "request_id": f"req_{next(self._ids)}",
                                                  "body": body})  # fmt: skip
                (output if code == 200 else errors).append(json.dumps(line))
            batch["output_file_id"] = self._store("batch_output.jsonl", output) if output else None
            batch["error_file_id"] = self._store("batch_errors.jsonl", errors) if errors else None
            counts = {"total": len(requests), "completed": len(output), "failed": len(errors)}
            batch["request_counts"] = counts
            batch["status"] = status
            batch[f"{status}_at"] = int(time.time())
            return batch

    def _store(self, filename: str, lines: list[str]) -> str:
        data = ("\n".join(lines) + "\n").encode()
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                               "filename": filename, "purpose": "batch_output", "status": "processed",
                               "_data": data}  # fmt: skip
        return file_id

    # the endpoints

    def handle(self, method: str, path: str, headers, body: bytes) -> tuple[int, object]:
        self.requests.append((method, path))
        url = urlsplit(path)
        parts = url.path.strip("/").split("/")  # v1, files|batches|chat, id|completions, content|cancel
        if method == "POST" and parts[1:] == ["chat", "completions"]:
            return self.respond(json.loads(body))  # a direct call, outside the lock (it may take a while)
        with self._lock:
            if method == "GET" and parts[1:] == ["batches"]:
                return 200, self._list(parse_qs(url.query))
            if method == "POST" and parts[1:] == ["files"]:
                return 200, self._upload(headers, body)
            if method == "GET" and parts[1] == "files" and len(parts) == 4 and parts[3] == "content":
                found = self.files.get(parts[2])
                return (200, found["_data"]) if found else _missing("file", parts[2])
            if method == "GET" and parts[1] == "files" and len(parts) == 3:
                found = self.files.get(parts[2])
                return (200, _public(found)) if found else _missing("file", parts[2])
            if method == "POST" and parts[1:] == ["batches"]:
                return self._create(json.loads(body))
            if method == "GET" and parts[1] == "batches" and len(parts) == 3:
                found = self.batches.get(parts[2])
                if found and self.auto_finish and found["status"] == "in_progress":
                    self.finish(parts[2])
                return (200, _public(found)) if found else _missing("batch", parts[2])
            if method == "POST" and parts[1] == "batches" and parts[3:] == ["cancel"]:
                found = self.batches.get(parts[2])
                if found is None:
                    return _missing("batch", parts[2])
                found.update(status="cancelled", cancelled_at=int(time.time()))
                return 200, _public(found)
        return 404, {"error": {"message": f"no route {method} {path}", "type": "invalid_request_error"}}

    def _upload(self, headers, body: bytes) -> dict:
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {headers['Content-Type']}\r\n\r\n".encode() + body
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        upload = fields["file"]
        data = upload.get_payload(decode=True)
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                               "filename": upload.get_filename(), "status": "processed",
                               "purpose": fields["purpose"].get_payload(decode=True).decode(), "_data": data}  # fmt: skip
        return _public(self.files[file_id])

    def _list(self, query: dict[str, list[str]]) -> dict:
        """A page of batches, newest first, after the batch `after` (OpenAI's cursor paging)."""
        limit = int(query.get("limit", [LIST_LIMIT])[0])
        order = sorted(self.batches.values(), key=lambda b: (b["created_at"], b["_seq"]), reverse=True)
        ids = [b["id"] for b in order]
        after = query.get("after", [None])[0]
        start = ids.index(after) + 1 if after in ids else 0
        page = [_public(b) for b in order[start : start + limit]]
        return {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None, "has_more": start + limit < len(order)}  # fmt: skip

    def _create(self, request: dict) -> tuple[int, dict]:
        if request.get("input_file_id") not in self.files:
            return _missing("file", request.get("input_file_id"))
        failing = self._failing_creates.pop(0) if self._failing_creates else None
        if failing is not None and not failing[1]:
            return _failure(failing[0])
        seq = next(self._ids)
        batch_id = f"batch_{seq}"
        now = int(time.time())
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": request["endpoint"], "errors": None,
            "input_file_id": request["input_file_id"], "completion_window": request["completion_window"],
            "status": "in_progress", "output_file_id": None, "error_file_id": None, "created_at": now,
            "in_progress_at": now, "expires_at": now + 86400, "finalizing_at": None, "completed_at": None,
            "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": request.get("metadata"),
            "_seq": seq,
        }  # fmt: skip
        if failing is not None:
            return _failure(failing[0])
        return 200, _public(self.batches[batch_id])


def _public(obj: dict) -> dict:
    return {key: value for key, value in obj.items() if not key.startswith("_")}


def _missing(what: str, name: object) -> tuple[int, dict]:
    return 404, {"error": {"message": f"no {what} {name}", "type": "invalid_request_error", "code": None}}


def _failure(status: int) -> tuple[int, dict]:
    kind = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}.get(
        status, "server_error" if status >= 500 else "invalid_request_error"
    )
    return status, {"error": {"message": f"failed on purpose with {status}", "type": kind, "code": None}}


def offline(body: dict) -> tuple[int, dict]:
    """Answer a chat request of this pipeline (extraction, reconciliation, summary) as the offline model
    does (agent_signals_offline.provider): its answer, usage counted with litellm's token counter, finish
    reason `stop`. A request that is not one of the pipeline's prompts is a 400."""
    import litellm

    from agent_signals_offline.provider import answer

    messages, model = body["messages"], body.get("model", "offline")
    try:
        text = answer(messages)
    except Exception as exc:  # not a prompt of this pipeline
        return 400, {"error": {"message": f"not a prompt of this pipeline: {exc}", "type": "invalid_request_error"}}  # fmt: skip
    prompt_tokens = litellm.token_counter(model=model, messages=messages)
    completion_tokens = litellm.token_counter(model=model, text=text, count_response_tokens=True)
    return 200, {
        "id": "chatcmpl-offline", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }  # fmt: skip


@contextmanager
def serving(respond: Respond, auto_finish: bool = False) -> Iterator[BatchServer]:
    """A BatchServer listening on a free port of 127.0.0.1 (its `url` ends in /v1) until the block ends;
    `auto_finish`: each batch is answered the first time it is retrieved (a run that waits gets it)."""
    state = BatchServer(respond, auto_finish=auto_finish)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, payload = state.handle(method, self.path, self.headers, body)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream" if isinstance(payload, bytes)
                             else "application/json")  # fmt: skip
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def log_message(self, *_args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
