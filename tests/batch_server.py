"""A local server of OpenAI's files and batches endpoints on 127.0.0.1, for the provider batch mode (issue 18)
reached through litellm's real provider path (`litellm.acreate_file`, `acreate_batch`, `aretrieve_batch`,
`afile_content`, `acancel_batch` with `custom_llm_provider="openai"` and `api_base` pointing here).

Uploads are multipart as the OpenAI SDK sends them; a batch's input file is JSONL of requests
({"custom_id", "method", "url", "body"}). A batch stays `in_progress` until the test decides its fate, as a
provider's would over minutes or hours: `finish(batch_id)` answers every request through `respond(body)`
(a (status, JSON body) pair, as tests/http_model.py's helpers build) and writes the output file (status 200)
and the error file (any other status); `expire(batch_id, answered=n)` ends it `expired` with the first n
requests answered; a cancel request ends it `cancelled` at once. Every request is recorded."""

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

from tests.http_model import chat

Respond = Callable[[dict], "tuple[int, dict]"]


@dataclass
class BatchServer:
    respond: Respond
    url: str = ""
    files: dict[str, dict] = field(default_factory=dict)  # id -> file object, with its bytes under "_data"
    batches: dict[str, dict] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    auto_finish: bool = False  # a batch is answered the first time it is retrieved
    refusals: list[int] = field(default_factory=list)  # statuses the next create-batch calls answer with
    _ids: Iterator[int] = field(default_factory=lambda: count(1))
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # what the tests do to a batch

    def finish(self, batch_id: str) -> dict:
        """Answer every request of the batch and end it `completed` (failed requests in its error file)."""
        return self._end(batch_id, "completed", None)

    def expire(self, batch_id: str, answered: int = 0) -> dict:
        """End the batch `expired` after its first `answered` requests (those are in its files)."""
        return self._end(batch_id, "expired", answered)

    def _end(self, batch_id: str, status: str, answered: int | None) -> dict:
        with self._lock:
            batch = self.batches[batch_id]
            lines = self.files[batch["input_file_id"]]["_data"].decode().splitlines()
            requests = [json.loads(line) for line in lines if line.strip()][:answered]
            output, errors = [], []
            for request in requests:
                code, body = self.respond(request["body"])
                line = {"id": f"batch_req_{next(self._ids)}", "custom_id": request["custom_id"], "error": None,
                        "response": {"status_code": code, "request_id": f"req_{next(self._ids)}", "body": body}}  # fmt: skip
                (output if code == 200 else errors).append(json.dumps(line))
            batch["output_file_id"] = self._store("batch_output.jsonl", output) if output else None
            batch["error_file_id"] = self._store("batch_errors.jsonl", errors) if errors else None
            batch["request_counts"] = {"total": len(lines), "completed": len(output), "failed": len(errors)}
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

    def fail_creates(self, times: int, status: int) -> None:
        """The next `times` create-batch calls are refused with HTTP `status`."""
        self.refusals.extend([status] * times)

    # the endpoints

    def handle(self, method: str, path: str, headers, body: bytes) -> tuple[int, object]:
        self.requests.append((method, path))
        parts = path.split("?")[0].strip("/").split("/")  # v1, files|batches, id, content|cancel
        with self._lock:
            if method == "POST" and parts[1:] == ["files"]:
                return 200, self._upload(headers, body)
            if method == "GET" and parts[1] == "files" and len(parts) == 4 and parts[3] == "content":
                found = self.files.get(parts[2])
                return (200, found["_data"]) if found else _missing("file", parts[2])
            if method == "GET" and parts[1] == "files" and len(parts) == 3:
                found = self.files.get(parts[2])
                return (200, _public(found)) if found else _missing("file", parts[2])
            if method == "POST" and parts[1:] == ["chat", "completions"]:
                return self.respond(json.loads(body))
            if method == "POST" and parts[1:] == ["batches"]:
                if self.refusals:
                    status = self.refusals.pop(0)
                    return status, {"error": {"message": f"refused ({status})", "type": "invalid_request_error",
                                              "code": None}}  # fmt: skip
                return self._create(json.loads(body))
            if method == "GET" and parts[1:] == ["batches"]:
                return 200, self._list(parse_qs(urlsplit(path).query))
            if method == "GET" and parts[1] == "batches" and len(parts) == 3:
                found = self.batches.get(parts[2])
                if found and self.auto_finish and found["status"] == "in_progress":
                    self.finish(parts[2])
                return (200, found) if found else _missing("batch", parts[2])
            if method == "POST" and parts[1] == "batches" and parts[3:] == ["cancel"]:
                found = self.batches.get(parts[2])
                if found is None:
                    return _missing("batch", parts[2])
                found.update(status="cancelled", cancelled_at=int(time.time()))
                return 200, found
        return 404, {"error": {"message": f"no route {method} {path}", "type": "invalid_request_error"}}

    def _list(self, query: dict) -> dict:
        """Newest first, `limit` at a time after the batch `after` (OpenAI's paging)."""
        ordered = sorted(self.batches.values(), key=lambda b: (b["created_at"], int(b["id"].split("_")[1])),
                         reverse=True)  # fmt: skip
        if "after" in query:
            ids = [b["id"] for b in ordered]
            ordered = ordered[ids.index(query["after"][0]) + 1 :] if query["after"][0] in ids else []
        limit = int(query.get("limit", ["20"])[0])
        page = ordered[:limit]
        return {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None, "has_more": len(ordered) > limit}  # fmt: skip

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

    def _create(self, request: dict) -> tuple[int, dict]:
        if request.get("input_file_id") not in self.files:
            return _missing("file", request.get("input_file_id"))
        batch_id = f"batch_{next(self._ids)}"
        now = int(time.time())
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": request["endpoint"], "errors": None,
            "input_file_id": request["input_file_id"], "completion_window": request["completion_window"],
            "status": "in_progress", "output_file_id": None, "error_file_id": None, "created_at": now,
            "in_progress_at": now, "expires_at": now + 86400, "finalizing_at": None, "completed_at": None,
            "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": request.get("metadata"),
        }  # fmt: skip
        return 200, self.batches[batch_id]


def _public(file: dict) -> dict:
    return {key: value for key, value in file.items() if not key.startswith("_")}


def _missing(what: str, name: object) -> tuple[int, dict]:
    return 404, {"error": {"message": f"no {what} {name}", "type": "invalid_request_error", "code": None}}


def offline(body: dict) -> tuple[int, dict]:
    """The offline model's answer to a chat request of this pipeline (any prompt family), with its usage
    counted as the offline provider counts it."""
    import litellm

    from agent_signals_offline.provider import answer

    text = answer(body["messages"])
    prompt = litellm.token_counter(model="offline/rules", messages=body["messages"])
    completion = litellm.token_counter(model="offline/rules", text=text, count_response_tokens=True)
    status, answered = chat(text, prompt_tokens=prompt, completion_tokens=completion)
    return status, {**answered, "model": body["model"]}  # priced as the model asked (litellm's map)


@contextmanager
def serving(respond: Respond, auto_finish: bool = False) -> Iterator[BatchServer]:
    """A BatchServer listening on a free port of 127.0.0.1 (its `url` ends in /v1) until the block ends;
    `auto_finish`: each batch is answered the first time it is retrieved."""
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
