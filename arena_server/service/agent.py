"""AgentService.Connect: the handshake, then many matches multiplexed over one stream.

One AgentSession per stream. Everything the server sends goes through the session's outbox and a
single writer task (gRPC allows one write at a time); everything the agent sends is read by the
handler loop and routed to the pending request it answers.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.protobuf import duration_pb2

import arena_engines
from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc

from .. import PROTOCOL_VERSION, auth
from ..referee import RESIGNED, SeatEndpoint
from ..store import Store

if TYPE_CHECKING:
    from ..lobby import Lobby
    from ..referee import MatchRunner

log = structlog.get_logger("arena.agent_service")

HELLO_TIMEOUT = 10.0


class AgentSession:
    def __init__(self, session_id: str, agent_name: str, hello: pb.Hello, games: dict[str, str | None]):
        self.session_id = session_id
        self.agent_name = agent_name
        self.resume_token = secrets.token_urlsafe(24)
        self.games = games                                  # game id -> preset (None = defaults)
        self.capacity = max(1, hello.max_concurrent_matches)
        self.join_ladder = hello.join_ladder
        self.alive = True
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.matches: dict[str, tuple["MatchRunner", set[int]]] = {}
        self.pending: dict[tuple[str, int], tuple[int, asyncio.Future]] = {}   # (match, decision) -> seat, answer
        self.waiting_since = time.monotonic()
        self.last_match_started = 0.0
        self.joined_order = 0

    # ---- seats --------------------------------------------------------------------------------
    def free_slots(self) -> int:
        return self.capacity - len(self.matches)

    def hold(self, match_id: str, seat: int, runner: "MatchRunner") -> None:
        self.matches.setdefault(match_id, (runner, set()))[1].add(seat)
        self.last_match_started = time.monotonic()

    def release(self, match_id: str) -> None:
        if self.matches.pop(match_id, None) is not None:
            self.waiting_since = time.monotonic()

    # ---- outgoing -------------------------------------------------------------------------------
    def send(self, message: pb.ConnectResponse) -> None:
        if self.alive:
            self.outbox.put_nowait(message)

    async def ask(self, request: pb.DecisionRequest, timeout: float):
        if not self.alive:
            return None
        future = asyncio.get_running_loop().create_future()
        key = (request.match_id, request.decision_id)
        self.pending[key] = (request.seat, future)
        self.send(pb.ConnectResponse(decision_request=request))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            self.pending.pop(key, None)

    # ---- incoming --------------------------------------------------------------------------------
    def on_decision(self, decision: pb.Decision) -> pb.Error | None:
        """Routes a decision to the request it answers; an Error when it answers none."""
        entry = self.pending.get((decision.match_id, decision.decision_id))
        if entry is None or entry[1].done():
            if decision.match_id not in self.matches:
                return pb.Error(code=pb.ERROR_CODE_UNKNOWN_MATCH, match_id=decision.match_id,
                                decision_id=decision.decision_id,
                                message=f"you hold no seat in a running match {decision.match_id!r}")
            return pb.Error(code=pb.ERROR_CODE_STALE_DECISION, match_id=decision.match_id,
                            decision_id=decision.decision_id,
                            message=f"decision {decision.decision_id} is not awaited (late, duplicated or never issued)")
        entry[1].set_result(decision)
        return None

    def on_resign(self, resign: pb.Resign) -> pb.Error | None:
        held = self.matches.get(resign.match_id)
        if held is None or resign.seat not in held[1]:
            return pb.Error(code=pb.ERROR_CODE_UNKNOWN_MATCH, match_id=resign.match_id,
                            message=f"you hold no seat {resign.seat} in a running match {resign.match_id!r}")
        runner, _ = held
        runner.resign(resign.seat)
        for (match_id, _), (seat, future) in list(self.pending.items()):
            if match_id == resign.match_id and seat == resign.seat and not future.done():
                future.set_result(RESIGNED)
        return None

    def close(self) -> None:
        """The stream is gone: every pending request is answered with None at once."""
        self.alive = False
        for _, future in self.pending.values():
            if not future.done():
                future.set_result(None)


class RemoteSeat(SeatEndpoint):
    """A seat held by a remote agent's session."""

    def __init__(self, session: AgentSession):
        self.session = session
        self.agent_name = session.agent_name

    def notify(self, message: pb.ConnectResponse) -> None:
        self.session.send(message)

    async def ask(self, request: pb.DecisionRequest, timeout: float):
        return await self.session.ask(request, timeout)

    def connection_key(self) -> object:
        return id(self.session)

    def connected(self) -> bool:
        return self.session.alive


class AgentService(agent_service_pb2_grpc.AgentServiceServicer):
    def __init__(self, store: Store, lobby: "Lobby", server_id: str, heartbeat_interval: float = 10.0):
        self.store = store
        self.lobby = lobby
        self.server_id = server_id
        self.heartbeat_interval = heartbeat_interval

    async def Connect(self, request_iterator, context: grpc.aio.ServicerContext):
        principal = await auth.require(self.store, context, "play")
        try:
            first = await asyncio.wait_for(request_iterator.__anext__(), HELLO_TIMEOUT)
        except (asyncio.TimeoutError, StopAsyncIteration):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"send Hello within {HELLO_TIMEOUT:g} s of connecting")
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message of a session must be Hello")
        hello = first.hello
        await self._check_hello(hello, principal, context)
        games, rejected = _resolve_games(hello)
        session = AgentSession("s_" + secrets.token_hex(8), hello.agent.name, hello, games)
        heartbeat = duration_pb2.Duration()
        heartbeat.FromNanoseconds(int(self.heartbeat_interval * 1e9))
        await context.write(pb.ConnectResponse(welcome=pb.Welcome(
            session_id=session.session_id, resume_token=session.resume_token, protocol_version=PROTOCOL_VERSION,
            server_id=self.server_id, heartbeat_interval=heartbeat, accepted_games=sorted(games),
            rejected_games=[pb.RejectedGame(game_id=g, reason=r) for g, r in rejected],
        )))
        slog = log.bind(session_id=session.session_id, agent=session.agent_name)
        slog.info("session opened", games=sorted(games), capacity=session.capacity, ladder=session.join_ladder)
        writer = asyncio.create_task(self._write(session, context))
        self.lobby.add(session)
        try:
            async for message in request_iterator:
                error = self._handle(session, message)
                if error is not None:
                    session.send(pb.ConnectResponse(error=error))
        except asyncio.CancelledError:
            pass
        except grpc.aio.AioRpcError:
            pass
        finally:
            session.close()
            self.lobby.remove(session)
            writer.cancel()
            slog.info("session closed", running_matches=len(session.matches))

    async def _check_hello(self, hello: pb.Hello, principal: auth.Principal, context) -> None:
        major = hello.protocol_version.split(".")[0]
        if major != PROTOCOL_VERSION.split(".")[0]:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version or '(empty)'} is not supported; this server speaks {PROTOCOL_VERSION}",
            )
        name = hello.agent.name
        if "admin" in principal.scopes:
            try:
                auth.validate_agent_name(name)
            except ValueError as e:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
            agent = self.store.get_agent(name)
            if agent is not None and agent["house"]:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"{name!r} is a house agent's name")
            self.store.ensure_agent(name)
        elif name != principal.agent_name:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                f"this API key plays as {principal.agent_name!r}; Hello names {name or '(empty)'!r}",
            )

    def _handle(self, session: AgentSession, message: pb.ConnectRequest) -> pb.Error | None:
        kind = message.WhichOneof("message")
        if kind == "decision":
            return session.on_decision(message.decision)
        if kind == "heartbeat":
            session.send(pb.ConnectResponse(heartbeat=pb.Heartbeat(time=_now())))
            return None
        if kind == "resign":
            return session.on_resign(message.resign)
        if kind == "probe_answer":
            return None   # no game asks probes yet; answers are accepted and ignored
        if kind == "hello":
            return pb.Error(code=pb.ERROR_CODE_MALFORMED_MESSAGE, message="Hello may be sent only once, first")
        return pb.Error(code=pb.ERROR_CODE_MALFORMED_MESSAGE, message="empty ConnectRequest: set one field of its oneof")

    @staticmethod
    async def _write(session: AgentSession, context) -> None:
        while True:
            message = await session.outbox.get()
            try:
                await context.write(message)
            except Exception:   # the stream is gone; the read loop will end the session
                session.close()
                return


def _resolve_games(hello: pb.Hello) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
    games: dict[str, str | None] = {}
    rejected: list[tuple[str, str]] = []
    for offer in hello.games:
        try:
            spec = arena_engines.game_spec(offer.game_id)
            if offer.preset:
                spec.preset(offer.preset)
        except KeyError as e:
            rejected.append((offer.game_id, str(e.args[0])))
            continue
        games[offer.game_id] = offer.preset or None
    return games, rejected


def _now():
    from google.protobuf import timestamp_pb2

    ts = timestamp_pb2.Timestamp()
    ts.GetCurrentTime()
    return ts
