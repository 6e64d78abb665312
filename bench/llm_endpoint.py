"""A local OpenAI-compatible chat endpoint that answers after a fixed latency, for benchmarks.

    python bench/llm_endpoint.py --latency 0.5 [--port 0] [--seed 1]

prints "listening on 127.0.0.1:PORT" and serves, on asyncio with the standard library only:

- POST /v1/chat/completions: waits `--latency` seconds (the model's time), then answers in GTBench's
  format ("Action: <move>"), a move picked at random (seeded by the prompt) among the legal moves the
  prompt lists; Negotiation, whose prompt lists none, gets an agreement, a proposal or an utterance.
  Usage counts tokens as characters / 4, reports the system prompt as cached tokens, and no
  reasoning tokens.
- GET /v1/models: one model, "bench".
- GET /stats: {"calls", "in_flight", "max_in_flight", "seconds_busy"} as JSON; POST /stats resets them.

Requests in flight are counted from the moment a request's body is read to the moment its answer is
written, so max_in_flight is the concurrency the client actually reached. HTTP/1.1 keep-alive on an
asyncio Protocol: a request waits its latency as a timer of the event loop (no task, no thread), so
that the endpoint takes as little of the machine as a remote model server would.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import time

LEGAL = re.compile(r"The legal moves now are: ([^\n]*)")
LABEL_START = re.compile(r", (?=<)")       # labels may hold ", " and ">" themselves: "<pile:4, take:3>", "<a7->a6>"
POOL = re.compile(r"The items to divide: ([^.]*)\.")


def _text(message: dict) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
    return content


def gtbench_answer(messages: list[dict], rng: random.Random) -> str:
    """A move in GTBench's answer format for the prompt `messages`."""
    prompt = "\n".join(_text(m) for m in messages if m.get("role") == "user")
    listed = LEGAL.findall(prompt)
    if listed:
        # "<a>, <b>, <c>." or, when long, "<a>, …, <z> (41 in all)."
        listing = re.sub(r" \(\d+ in all\)\.?$", "", listed[-1].strip()).removesuffix(".")
        moves = [m for m in LABEL_START.split(listing) if m.startswith("<") and m.endswith(">")]
        if moves:
            return f"Thought: any legal move will do.\nAction: {rng.choice(moves)}"
    if "<Utterance: [a, b, c]>" in prompt:
        return f"Action: <Utterance: [{rng.randint(0, 4)}, {rng.randint(0, 4)}, {rng.randint(0, 4)}]>"
    if "<Agree>" in prompt:
        if "Your opponent proposes" in prompt and rng.random() < 0.5:
            return "Action: <Agree>"
        pool = [int(n) for n in re.findall(r"(\d+) ", POOL.search(prompt).group(1))] if POOL.search(prompt) else []
        take = [rng.randint(0, n) for n in pool] or [0, 0, 0]
        return f"Action: <Proposal: [{', '.join(map(str, take))}]>"
    return "Action: <Pass>"


class Endpoint:
    def __init__(self, latency: float, seed: int):
        self.latency = latency
        self.seed = seed
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.busy = 0.0          # seconds with at least one request in flight
        self._busy_since = 0.0

    def stats(self) -> dict:
        busy = self.busy + (time.monotonic() - self._busy_since if self.in_flight else 0.0)
        return {"calls": self.calls, "in_flight": self.in_flight, "max_in_flight": self.max_in_flight,
                "seconds_busy": round(busy, 3)}

    def reset(self) -> None:
        self.calls, self.max_in_flight, self.busy = 0, self.in_flight, 0.0
        self._busy_since = time.monotonic()

    def handle(self, connection: "Connection", method: str, path: str, body: bytes) -> None:
        """Answers one request on `connection`: a chat completion once the latency has passed, the rest at once."""
        if method == "POST" and path.endswith("/chat/completions"):
            if self.in_flight == 0:
                self._busy_since = time.monotonic()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            asyncio.get_running_loop().call_later(self.latency, self._complete, connection, body)
        elif method == "GET" and path.endswith("/models"):
            connection.send(200, {"object": "list", "data": [{"id": "bench", "object": "model", "created": 0,
                                                              "owned_by": "bench"}]})
        elif path == "/stats":
            if method == "POST":
                self.reset()
            connection.send(200, self.stats())
        else:
            connection.send(404, {"error": {"message": f"no route {method} {path}"}})

    def _complete(self, connection: "Connection", body: bytes) -> None:
        try:
            connection.send(200, self.completion(json.loads(body or b"{}")))
        except ValueError:
            connection.send(400, {"error": {"message": "the body is not JSON"}})
        finally:
            self.in_flight -= 1
            if self.in_flight == 0:
                self.busy += time.monotonic() - self._busy_since

    def completion(self, body: dict) -> dict:
        messages = body.get("messages", [])
        digest = hashlib.blake2b(json.dumps(messages, sort_keys=True).encode(), digest_size=8).digest()
        rng = random.Random(int.from_bytes(digest, "big") ^ self.seed)
        content = gtbench_answer(messages, rng)
        self.calls += 1
        prompt_tokens = sum(len(_text(m)) for m in messages) // 4 + 4 * len(messages)
        cached = len(_text(messages[0])) // 4 if messages and messages[0].get("role") == "system" else 0
        completion_tokens = max(1, len(content) // 4)
        return {
            "id": f"chatcmpl-{self.calls}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "bench"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens,
                      "prompt_tokens_details": {"cached_tokens": cached},
                      "completion_tokens_details": {"reasoning_tokens": 0}},
        }


class Connection(asyncio.Protocol):
    """One client connection: HTTP/1.1 requests with Content-Length bodies (clients send the next one
    after the answer to the last)."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.close_after = False        # the client asked for "Connection: close"

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            lines = self.buffer[:head_end].decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            try:
                method, path, _ = lines[0].split(" ", 2)
                length = int(headers.get("content-length") or 0)
            except ValueError:
                self.send(400, {"error": {"message": "not an HTTP request"}})
                self.transport.close()
                return
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            body = bytes(self.buffer[head_end + 4:end])
            del self.buffer[:end]
            self.close_after = headers.get("connection", "").lower() == "close"
            self.endpoint.handle(self, method, path.split("?")[0].rstrip("/"), body)

    def send(self, status: int, payload: dict) -> None:
        if self.transport.is_closing():
            return                       # the client gave up on this request
        data = json.dumps(payload).encode()
        self.transport.write(f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                             f"Connection: keep-alive\r\n\r\n".encode() + data)
        if self.close_after:
            self.transport.close()


async def main(args: argparse.Namespace) -> None:
    endpoint = Endpoint(args.latency, args.seed)
    server = await asyncio.get_running_loop().create_server(lambda: Connection(endpoint), "127.0.0.1", args.port,
                                                            backlog=1024)
    print(f"listening on 127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds before each answer (default 0.5)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the moves picked (default 1)")
    try:
        asyncio.run(main(parser.parse_args()))
    except KeyboardInterrupt:
        pass
