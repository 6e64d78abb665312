"""The wire, as any client sees it: a channel to the server under test (plaintext, TLS or mutual TLS),
API keys in metadata, unary calls whose refusals are read as (status code, details, trailers), and an
agent stream (AgentService.Connect) that records everything the server sends. Only grpc and the
generated arena.v1 stubs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc

CONNECT = "/arena.v1.AgentService/Connect"
PROTOCOL_VERSION = "1.0"
# The client sends and reads messages of any size: the limits are the server's to enforce.
CHANNEL_OPTIONS = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]


@dataclass(frozen=True)
class Endpoint:
    """Where the server under test is and how to reach it."""

    address: str
    root_certificates: bytes | None = None     # TLS with these roots (None with tls: the system's)
    client_certificate: bytes | None = None    # mutual TLS
    client_key: bytes | None = None
    tls: bool = False

    def channel(self) -> grpc.aio.Channel:
        if not (self.tls or self.root_certificates or self.client_certificate):
            return grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS)
        credentials = grpc.ssl_channel_credentials(self.root_certificates, self.client_key, self.client_certificate)
        return grpc.aio.secure_channel(self.address, credentials, options=CHANNEL_OPTIONS)


def bearer(key: str | None) -> list[tuple[str, str]]:
    """The metadata that carries an API key; none for None or ""."""
    return [("authorization", f"Bearer {key}")] if key else []


@dataclass
class Status:
    """How a call ended."""

    code: grpc.StatusCode
    details: str
    trailers: dict[str, str]

    def __str__(self) -> str:
        return f"{self.code.name} ({short(self.details)})"


def status_of(error: grpc.aio.AioRpcError) -> Status:
    trailers = {k: v for k, v in (error.trailing_metadata() or ()) if isinstance(v, str)}
    return Status(error.code(), error.details() or "", trailers)


async def refusal(call) -> Status | None:
    """Awaits a unary call; its status when refused, None when it succeeded."""
    try:
        await call
    except grpc.aio.AioRpcError as e:
        return status_of(e)
    return None


def short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def kind(message: pb.ConnectResponse) -> str:
    return message.WhichOneof("message") or ""


def match_of(message: pb.ConnectResponse) -> str:
    """The match a server message is about ("" for a Welcome, a Heartbeat or an Error without one)."""
    k = kind(message)
    if k in ("match_started", "match_ended"):
        return getattr(message, k).match.match_id
    if k == "event":
        return message.event.match_id
    if k in ("decision_request", "probe", "error"):
        return getattr(message, k).match_id
    return ""


def hello(*, name: str = "", version: str = PROTOCOL_VERSION, games: list[str] = (), capacity: int = 1,
          join_ladder: bool = False, resume_token: str = "", capabilities: tuple[str, ...] = ()) -> pb.ConnectRequest:
    return pb.ConnectRequest(hello=pb.Hello(
        protocol_version=version, agent=pb.AgentInfo(name=name, version="compliance", description="arena.v1 compliance suite"),
        capabilities=list(capabilities), games=[pb.GameOffer(game_id=g) for g in games],
        max_concurrent_matches=capacity, resume_token=resume_token, join_ladder=join_ladder))


class AgentStream:
    """One AgentService.Connect call. Everything the server sends is kept in `received`, in order;
    `status` is set when the call ends. Readers consume with `next`, which moves a cursor, or search
    `received` directly."""

    def __init__(self, channel: grpc.aio.Channel, key: str | None, *, metadata: list[tuple[str, str]] | None = None):
        self.received: list[pb.ConnectResponse] = []
        self.arrived: list[float] = []           # monotonic time each message arrived
        self.status: Status | None = None        # how the call ended, once it has
        self.cursor = 0
        self.send_failure: str = ""
        self._changed = asyncio.Event()
        stub = agent_service_pb2_grpc.AgentServiceStub(channel)
        self._call = stub.Connect(metadata=bearer(key) + list(metadata or []))
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                message = await self._call.read()
                if message is grpc.aio.EOF:
                    self.status = Status(grpc.StatusCode.OK, "", {})
                    break
                self.received.append(message)
                self.arrived.append(time.monotonic())
                self._changed.set()
        except grpc.aio.AioRpcError as e:
            self.status = status_of(e)
        except asyncio.CancelledError:
            if self.status is None:
                self.status = Status(grpc.StatusCode.CANCELLED, "cancelled by the compliance suite", {})
            raise
        except Exception as e:      # noqa: BLE001  (anything else the library raises ends the call too)
            self.status = Status(grpc.StatusCode.UNKNOWN, f"{type(e).__name__}: {e}", {})
        finally:
            self._changed.set()

    async def send(self, message: pb.ConnectRequest) -> bool:
        """Writes one message; False when the call no longer takes any (its end is in `status`)."""
        try:
            await self._call.write(message)
            return True
        except Exception as e:      # noqa: BLE001  (a finished call raises on write, in several ways)
            self.send_failure = f"{type(e).__name__}: {e}"
            return False

    async def decide(self, request: pb.DecisionRequest, **choice) -> bool:
        return await self.send(pb.ConnectRequest(decision=pb.Decision(
            match_id=request.match_id, decision_id=request.decision_id, **choice)))

    async def started(self) -> None:
        """Waits until the call's headers are out (for a call that sends nothing)."""
        await self._call.wait_for_connection()

    async def wait(self, predicate: Callable[[], object], timeout: float) -> bool:
        """Waits until predicate() is true (re-checked on every message and at the call's end)."""
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._changed.clear()
            if predicate():
                return True
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                return bool(predicate())
        return True

    def find(self, test: Callable[[pb.ConnectResponse], object], start: int = 0) -> int:
        """Index of the first message at or after `start` that passes `test`; -1 when none yet."""
        for i in range(start, len(self.received)):
            if test(self.received[i]):
                return i
        return -1

    async def next(self, test: Callable[[pb.ConnectResponse], object], timeout: float,
                   what: str = "the expected message") -> pb.ConnectResponse:
        """The first message after the cursor that passes `test` (the cursor moves past it). Raises
        Fail when the call ends or `timeout` passes first."""
        from .registry import Fail

        found = [-1]

        def ready():
            found[0] = self.find(test, self.cursor)
            return found[0] >= 0 or self.status is not None

        await self.wait(ready, timeout)
        if found[0] < 0:
            found[0] = self.find(test, self.cursor)
        if found[0] < 0:
            if self.status is not None:
                raise Fail(f"the call ended with {self.status} before {what}")
            raise Fail(f"no {what} within {timeout:g} s")
        self.cursor = found[0] + 1
        return self.received[found[0]]

    async def expect(self, test: Callable[[pb.ConnectResponse], object], timeout: float,
                     what: str = "the expected message", start: int = 0) -> pb.ConnectResponse:
        """The first message at or after `start` that passes `test`, without moving the cursor. Raises
        Fail when the call ends or `timeout` passes first."""
        from .registry import Fail

        await self.wait(lambda: self.find(test, start) >= 0 or self.status is not None, timeout)
        found = self.find(test, start)
        if found < 0:
            if self.status is not None:
                raise Fail(f"the call ended with {self.status} before {what}")
            raise Fail(f"no {what} within {timeout:g} s")
        return self.received[found]

    async def welcome(self, timeout: float) -> pb.Welcome:
        return (await self.next(lambda m: kind(m) == "welcome", timeout, "Welcome")).welcome

    async def ended(self, timeout: float) -> Status | None:
        """The call's final status once it ends within `timeout`; None while it is still open."""
        await self.wait(lambda: self.status is not None, timeout)
        return self.status

    def of_kind(self, name: str, start: int = 0) -> list:
        return [getattr(m, name) for m in self.received[start:] if kind(m) == name]

    def errors(self, start: int = 0) -> list[pb.Error]:
        return self.of_kind("error", start)

    async def close(self) -> None:
        self._call.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(self._reader), 2)
        except (asyncio.TimeoutError, asyncio.CancelledError, Exception):     # noqa: BLE001
            self._reader.cancel()


async def open_stream(channel: grpc.aio.Channel, key: str | None, first: pb.ConnectRequest | None,
                      **kw) -> AgentStream:
    stream = AgentStream(channel, key, **kw)
    if first is not None:
        await stream.send(first)
    return stream


async def raw_stream(channel: grpc.aio.Channel, method: str, messages: list[bytes], key: str | None,
                     timeout: float) -> tuple[list[bytes], Status | None]:
    """Sends `messages` as they are, bytes on the wire, on a streaming call; returns what came back
    and the status (None when the call was still open at `timeout`)."""
    call = channel.stream_stream(method, request_serializer=None, response_deserializer=None)(metadata=bearer(key))
    replies: list[bytes] = []

    async def run() -> Status:
        for m in messages:
            await call.write(m)
        while True:
            reply = await call.read()
            if reply is grpc.aio.EOF:
                return Status(grpc.StatusCode.OK, "", {})
            replies.append(reply)

    try:
        return replies, await asyncio.wait_for(run(), timeout)
    except grpc.aio.AioRpcError as e:
        return replies, status_of(e)
    except asyncio.TimeoutError:
        return replies, None
    finally:
        call.cancel()
