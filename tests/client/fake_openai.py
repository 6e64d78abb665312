"""A small OpenAI-compatible chat endpoint for tests, on 127.0.0.1 with the standard library only.

It serves POST /v1/chat/completions and GET /v1/models over real HTTP, so the `openai` client is
exercised exactly as against a hosted or local model server. Replies come from a script (a queue
of Reply objects or functions of the request), then from a responder function; every request is
recorded. Token counts are words, so tests can predict them.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Union


@dataclass
class Reply:
    """One scripted answer: a completion with `content`, or an error with `status`."""

    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    message: str = ""           # error message, for status >= 400


def text(content: str) -> Reply:
    return Reply(content)


def error(status: int, message: str = "scripted failure", **headers: str) -> Reply:
    return Reply(status=status, message=message, headers={k.replace("_", "-"): v for k, v in headers.items()})


Scripted = Union[Reply, Callable[[dict], Reply]]


def words(content: str) -> int:
    return len(content.split())


def message_text(message: dict) -> str:
    """A chat message's text; of a message with content parts (text and images), its text parts."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
    return content


def prompt_text(body: dict) -> str:
    return "\n".join(message_text(m) for m in body.get("messages", []))


class FakeOpenAI:
    """Use as a context manager: `with FakeOpenAI() as model: ... model.base_url ...`."""

    def __init__(self, api_key: str = "test-key", responder: Callable[[dict], Reply] | None = None):
        self.api_key = api_key
        self.responder = responder
        self.script: deque[Scripted] = deque()
        self.requests: list[dict] = []          # JSON bodies of chat requests, in arrival order
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *replies: Scripted) -> None:
        with self.lock:
            self.script.extend(replies)

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict) -> Reply:
        with self.lock:
            self.requests.append(body)
            scripted = self.script.popleft() if self.script else self.responder
        if scripted is None:
            return error(500, "the test scripted no more replies")
        return scripted(body) if callable(scripted) else scripted

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:      # keep test output quiet
                pass

            def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _authorized(self) -> bool:
                if self.headers.get("Authorization") == f"Bearer {fake.api_key}":
                    return True
                self._send(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                           "code": "invalid_api_key"}})
                return False

            def do_GET(self) -> None:
                if not self._authorized():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model", "created": 0,
                                                                 "owned_by": "tests"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self._authorized():
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = fake._next(body)
                if reply.status >= 400:
                    self._send(reply.status, {"error": {"message": reply.message, "type": "server_error"}},
                               reply.headers)
                    return
                completion = {
                    "id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": words(prompt_text(body)), "completion_tokens": words(reply.content),
                              "total_tokens": words(prompt_text(body)) + words(reply.content)},
                }
                self._send(200, completion, reply.headers)

        return Handler


def first_listed_action(body: dict) -> Reply:
    """A model that reads the generic prompt: some chatter, then the first numbered legal action."""
    listed = re.search(r"^\s*#1\s+(.+)$", message_text(body["messages"][-1]), re.MULTILINE)
    if not listed:
        return text("I am not sure what to do here.")
    return text(f"Looking at the position, every option has merit.\nI'll go with the first one.\n"
                f"Action: {listed.group(1).strip()}")
