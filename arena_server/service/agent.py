"""AgentService.Connect: the handshake, then many matches multiplexed over one stream.

Everything the server sends goes through the session's outbox and a single writer task (gRPC
allows one write at a time); everything the agent sends is read by the handler loop and routed to
the pending request it answers.

A session outlives its stream. When the stream drops, the session waits `resume_grace` seconds for
a Hello carrying its resume token; that stream takes the session over and first receives a
snapshot of every match (see AgentSession.attach). After a server restart, the seats of resumed
matches wait the same grace window in a placeholder session for the agent's next fresh Hello
(awaiting_seat); the new session then holds them through the placeholder (service/relay.py), and
so does a new session on another process sharing the database (cluster/).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Callable

import grpc
import structlog
from google.protobuf import duration_pb2

import arena_engines
from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc

from .. import PROTOCOL_VERSION, auth, metrics
from ..limits import RateLimiter, echo
from ..referee import RESIGNED, SeatEndpoint
from ..store import Store
from .relay import LocalRelay, Relay, RoutedMatch

if TYPE_CHECKING:
    from ..lobby import Lobby
    from ..referee import MatchRunner

log = structlog.get_logger("arena.agent_service")

HELLO_TIMEOUT = 10.0
NO_MATCH_EVENTS = "no_match_events"     # Hello capability: the agent takes no MatchEvent
IMAGES = "images"                       # Hello capability: the agent takes Observation.images
PROBES = "probes"                       # Hello capability: the agent answers Probe messages
# Welcome lists at most this many refused games, each with its reason: a Hello is bounded by the
# message size, but a reason per offered game would multiply it.
MAX_REJECTED_LISTED = 50


class AgentSession:
    """One agent's session. It outlives its stream: when the stream drops, the session keeps its
    seats and pending requests (their deadlines still running) for the grace window, and a new
    stream presenting its resume token takes it over (`attach`) with a snapshot of every match."""

    def __init__(self, session_id: str, agent_name: str):
        self.session_id = session_id
        self.agent_name = agent_name
        self.resume_token = ""
        self.games: dict[str, str | None] = {}              # game id -> preset (None = defaults)
        self.capacity = 1
        self.join_ladder = False
        self.match_events = True    # MatchEvents wanted (Hello did not declare "no_match_events")
        self.images = False         # Observation.images wanted (Hello declared "images")
        self.probes = False         # answers Probe messages (Hello declared "probes")
        self.pending_probes: dict[tuple[str, str], asyncio.Future] = {}
        self.alive = False          # a stream is attached
        self.abandoned = False      # the grace window passed: its seats are left to the failure policy
        self.stream_epoch = 0       # counts attached streams; a stream that was taken over is stale
        self.stream_task: asyncio.Task | None = None
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.matches: dict[str, tuple["MatchRunner", set[int]]] = {}
        self.pending: dict[tuple[str, int], tuple[pb.DecisionRequest, asyncio.Future]] = {}   # (match, decision)
        self._missed_endings: list[pb.ConnectResponse] = []    # MatchEnded sent while no stream was attached
        self.waiting_since = time.time()
        self.last_match_started = 0.0
        self.joined_order = 0
        # Set on a stand-in: the session its agent's stream is attached to (service/relay.py).
        self.relay: Relay | None = None

    def configure(self, hello: pb.Hello, games: dict[str, str | None]) -> None:
        """What a fresh Hello asks for: its games, capacity and ladder choice."""
        self.games = games
        self.capacity = max(1, hello.max_concurrent_matches)
        self.join_ladder = hello.join_ladder
        self.match_events = NO_MATCH_EVENTS not in hello.capabilities
        self.images = IMAGES in hello.capabilities
        self.probes = PROBES in hello.capabilities

    # ---- streams ----------------------------------------------------------------------------------
    def attach(self) -> int:
        """A new stream takes the session: a fresh outbox and resume token (tokens are single-use),
        then a snapshot of every held match queued first. Returns the stream's epoch."""
        self.stream_epoch += 1
        self.alive = True
        self.outbox = asyncio.Queue()
        self.resume_token = secrets.token_urlsafe(24)
        self._queue_snapshot()
        self._tell_routes()
        return self.stream_epoch

    def detach(self) -> None:
        """The stream is gone. Pending requests keep waiting, for a resume or their deadline."""
        self.alive = False
        self._tell_routes()

    def abandon(self) -> None:
        """Nobody resumed within the grace window: every pending request is answered with None at once,
        and later ones too, so the failure policy takes the session's seats."""
        self.abandoned = True
        self._missed_endings.clear()
        for _, future in self.pending.values():
            if not future.done():
                future.set_result(None)
        self._tell_routes()

    def relay_to(self, relay: Relay) -> None:
        """The agent's stream is now another session's (the agent connected afresh, here or on another
        process): every held match is held there too, then the snapshot goes there."""
        self.relay = relay
        self.stream_epoch += 1
        self.alive = True
        for match_id, (_, seats) in self.matches.items():
            for seat in sorted(seats):
                relay.hold(match_id, seat)
        self._queue_snapshot()

    def relay_lost(self) -> None:
        """The session relayed to is gone for good (its process died): the seats wait, detached, for
        the agent to connect again."""
        self.relay = None
        self.alive = False

    def resend_pending(self) -> None:
        """The pending requests again, with the time they have left (the stream relayed to came back)."""
        now = time.time()
        for request, future in self.pending.values():
            if not future.done():
                self.send(pb.ConnectResponse(decision_request=_with_time_left(request, now)))

    def _tell_routes(self) -> None:
        """Stand-ins whose matches this session holds follow its stream's state."""
        routes = {id(runner.route): runner.route for runner, _ in self.matches.values()
                  if isinstance(runner, RoutedMatch)}
        for route in routes.values():
            route.stream_state(self.alive, self.abandoned)

    def _queue_snapshot(self) -> None:
        """For each held match: MatchStarted for every held seat and the public events so far; then
        the endings missed while away; then the pending requests with the time they have left."""
        for runner, seats in self.matches.values():
            for seat in sorted(seats):
                self.send(runner.match_started(seat))
            if self.match_events:
                for event in runner.public_events():
                    self.send(pb.ConnectResponse(event=event))
        for ended in self._missed_endings:
            self.send(ended)
        self._missed_endings.clear()
        self.resend_pending()

    # ---- seats --------------------------------------------------------------------------------
    def free_slots(self) -> int:
        return self.capacity - len(self.matches)

    def hold(self, match_id: str, seat: int, runner: "MatchRunner | RoutedMatch") -> None:
        held = self.matches.get(match_id)
        if held is None or held[0] is not runner:     # a new match, or a new referee for it (a takeover)
            held = self.matches[match_id] = (runner, set())
        held[1].add(seat)
        self.last_match_started = time.time()
        if self.relay is not None:
            self.relay.hold(match_id, seat)

    def release(self, match_id: str) -> None:
        if self.matches.pop(match_id, None) is not None:
            self.waiting_since = time.time()
            if self.relay is not None:
                self.relay.release(match_id)

    # ---- outgoing -------------------------------------------------------------------------------
    def send(self, message: pb.ConnectResponse) -> None:
        if self.relay is not None:
            self.relay.push(message)
        elif self.alive:
            self.outbox.put_nowait(message)
        elif not self.abandoned and message.WhichOneof("message") == "match_ended":
            self._missed_endings.append(message)   # events and requests are rebuilt by the snapshot

    async def ask(self, request: pb.DecisionRequest, timeout: float):
        """The agent's answer; None at the deadline. While no stream is attached the request waits
        for a resume (it is re-sent then) until its deadline or the end of the grace window."""
        if self.abandoned:
            return None
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        key = (request.match_id, request.decision_id)
        self.pending[key] = (request, future)
        self.send(pb.ConnectResponse(decision_request=request))
        deadline = loop.call_later(timeout, _answer_none, future)   # lighter than asyncio.wait_for
        try:
            return await future
        finally:
            deadline.cancel()
            self.pending.pop(key, None)

    async def probe(self, probe: pb.Probe, timeout: float) -> str | None:
        """The agent's answer to a probe; None at the deadline, or at once when the agent takes none."""
        if not self.probes or self.abandoned:
            return None
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        key = (probe.match_id, probe.probe_id)
        self.pending_probes[key] = future
        self.send(pb.ConnectResponse(probe=probe))
        deadline = loop.call_later(timeout, _answer_none, future)
        try:
            return await future
        finally:
            deadline.cancel()
            self.pending_probes.pop(key, None)

    def on_probe_answer(self, answer: pb.ProbeAnswer) -> pb.Error | None:
        future = self.pending_probes.get((answer.match_id, answer.probe_id))
        if (future is None or future.done()) and (routed := self._routed(answer.match_id)) is not None:
            routed.route.probe_answer(answer)
            return None
        if future is None or future.done():
            return pb.Error(code=pb.ERROR_CODE_STALE_DECISION, match_id=echo(answer.match_id),
                            message=f"probe {echo(answer.probe_id)!r} is not awaited (late, duplicated or never asked)")
        future.set_result(answer.text)
        return None

    # ---- incoming --------------------------------------------------------------------------------
    def on_decision(self, decision: pb.Decision) -> pb.Error | None:
        """Routes a decision to the request it answers; an Error when it answers none."""
        entry = self.pending.get((decision.match_id, decision.decision_id))
        if entry is None or entry[1].done():
            if (routed := self._routed(decision.match_id)) is not None:
                routed.route.decision(decision)
                return None
            if decision.match_id not in self.matches:
                match_id = echo(decision.match_id)
                return pb.Error(code=pb.ERROR_CODE_UNKNOWN_MATCH, match_id=match_id, decision_id=decision.decision_id,
                                message=f"you hold no seat in a running match {match_id!r}")
            return pb.Error(code=pb.ERROR_CODE_STALE_DECISION, match_id=decision.match_id,
                            decision_id=decision.decision_id,
                            message=f"decision {decision.decision_id} is not awaited (late, duplicated or never issued)")
        entry[1].set_result(decision)
        return None

    def on_resign(self, resign: pb.Resign) -> pb.Error | None:
        held = self.matches.get(resign.match_id)
        if held is not None and isinstance(held[0], RoutedMatch) and resign.seat in held[1]:
            held[0].route.resign(resign)
            return None
        if held is None or resign.seat not in held[1]:
            match_id = echo(resign.match_id)
            return pb.Error(code=pb.ERROR_CODE_UNKNOWN_MATCH, match_id=match_id,
                            message=f"you hold no seat {resign.seat} in a running match {match_id!r}")
        runner, _ = held
        runner.resign(resign.seat)
        for (match_id, _), (request, future) in list(self.pending.items()):
            if match_id == resign.match_id and request.seat == resign.seat and not future.done():
                future.set_result(RESIGNED)
        return None


    def _routed(self, match_id: str) -> RoutedMatch | None:
        held = self.matches.get(match_id)
        return held[0] if held is not None and isinstance(held[0], RoutedMatch) else None


def _with_time_left(request: pb.DecisionRequest, now: float) -> pb.DecisionRequest:
    resent = pb.DecisionRequest()
    resent.CopyFrom(request)
    resent.time_remaining.FromNanoseconds(max(0, request.deadline.ToNanoseconds() - int(now * 1e9)))
    return resent


class RemoteSeat(SeatEndpoint):
    """A seat held by a remote agent's session."""

    def __init__(self, session: AgentSession):
        self.session = session
        self.agent_name = session.agent_name

    def notify(self, message: pb.ConnectResponse) -> None:
        self.session.send(message)

    async def ask(self, request: pb.DecisionRequest, timeout: float):
        return await self.session.ask(request, timeout)

    def takes_probes(self) -> bool:
        return self.session.probes

    async def probe(self, probe: pb.Probe, timeout: float) -> str | None:
        return await self.session.probe(probe, timeout)

    def connection_key(self) -> object:
        return id(self.session)

    def wants_events(self) -> bool:
        return self.session.match_events

    def wants_images(self) -> bool:
        return self.session.images

    def connected(self) -> bool:
        return self.session.alive


class AgentService(agent_service_pb2_grpc.AgentServiceServicer):
    def __init__(self, store: Store, lobby: "Lobby", server_id: str, heartbeat_interval: float = 10.0,
                 limiter: RateLimiter | None = None, resume_grace: float = 30.0, max_unread_messages: int = 10_000):
        self.store = store
        self.lobby = lobby
        self.server_id = server_id
        self.heartbeat_interval = heartbeat_interval
        self.limiter = limiter or RateLimiter(0, 0)
        self.resume_grace = resume_grace
        self.max_unread_messages = max_unread_messages
        self._resumable: dict[str, AgentSession] = {}   # resume token -> session, attached or in its grace window
        # Agent name -> placeholders holding the seats of matches resumed after a restart (or taken
        # over from a dead process) until the agent connects again.
        self._awaiting: dict[str, list[AgentSession]] = {}
        # Several processes: a session opened with a fresh Hello, and the placeholders it took here
        # (cluster/node.py hands the other processes' placeholders to it).
        self.on_fresh: Callable[[AgentSession, list[AgentSession]], None] | None = None

    async def Connect(self, request_iterator, context: grpc.aio.ServicerContext):
        # The first message is read before the key is checked: when a server ends a bidirectional
        # call while the client is still sending, gRPC's Python client may report INTERNAL
        # ("Internal error from Core") instead of the status that says what was wrong.
        try:
            first = await asyncio.wait_for(request_iterator.__anext__(), HELLO_TIMEOUT)
        except (asyncio.TimeoutError, StopAsyncIteration):
            first = None
        principal = await auth.require(self.store, context, "play")
        rate_key = auth.key_from_metadata(context.invocation_metadata())
        if first is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"send Hello within {HELLO_TIMEOUT:g} s of connecting")
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message of a session must be Hello")
        hello = first.hello
        name = await self._check_hello(hello, principal, context)
        session, rejected = await self._session_for(hello, name, context)
        resumed = bool(hello.resume_token)
        epoch = self._attach(session)
        if not resumed:
            adopted = self.adopt_awaiting(name, lambda placeholder: LocalRelay(placeholder, session, self.store),
                                          match_events=session.match_events, images=session.images,
                                          probes=session.probes)
            if self.on_fresh is not None:
                self.on_fresh(session, adopted)
        metrics.SESSIONS_CONNECTED.inc()      # until this call's finally below
        if resumed:
            metrics.RESUMES.inc()
        heartbeat = duration_pb2.Duration()
        heartbeat.FromNanoseconds(int(self.heartbeat_interval * 1e9))
        slog = log.bind(session_id=session.session_id, agent=session.agent_name)
        writer = None
        try:
            await context.write(pb.ConnectResponse(welcome=pb.Welcome(
                session_id=session.session_id, resume_token=session.resume_token, protocol_version=PROTOCOL_VERSION,
                server_id=self.server_id, heartbeat_interval=heartbeat, accepted_games=sorted(session.games),
                rejected_games=[pb.RejectedGame(game_id=g, reason=r) for g, r in rejected],
                agent_name=session.agent_name,
            )))
            slog.info("session resumed" if resumed else "session opened", games=sorted(session.games),
                      capacity=session.capacity, ladder=session.join_ladder, running_matches=len(session.matches))
            writer = asyncio.create_task(self._write(session, epoch, context))
            self.lobby.add(session)
            async for message in request_iterator:
                error = self.limiter.refuse_message(rate_key, message) or self._handle(session, message)
                if error is not None:
                    session.send(pb.ConnectResponse(error=error))
                unread = session.outbox.qsize()
                if unread > self.max_unread_messages:
                    # What the server sends unasked is bounded by the agent's matches; what grows
                    # without bound is answers to an agent that sends (heartbeats, refused
                    # messages) but does not read. Its session stays resumable.
                    slog.warning("closing a stream whose agent does not read it", unread_messages=unread)
                    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                        f"{unread} messages are waiting for this agent to read its stream (at most "
                                        f"{self.max_unread_messages}); read the stream, then resume the session")
        except asyncio.CancelledError:
            pass
        except grpc.aio.AioRpcError:
            pass
        finally:
            if writer is not None:
                writer.cancel()
            metrics.SESSIONS_CONNECTED.dec()
            if session.stream_epoch == epoch:      # not taken over by a newer stream
                self._detach(session)
            slog.info("stream closed", running_matches=len(session.matches))

    # ---- sessions across streams ------------------------------------------------------------------
    async def _session_for(self, hello: pb.Hello, name: str, context) -> tuple[AgentSession, list[tuple[str, str]]]:
        """The session a Hello opens for agent `name`: the one its resume token names (keeping that
        session's games and capacity), the seats waiting for this agent since a restart, or a new session."""
        if hello.resume_token:
            session = self._resumable.get(hello.resume_token)
            if session is None or session.abandoned:
                await context.abort(grpc.StatusCode.NOT_FOUND,
                                    "the resume token is unknown or expired (its grace window passed, it was "
                                    "used already, or the server restarted); connect without it")
            if session.agent_name != name:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                    f"the resume token belongs to another agent than {name!r}")
            return session, []
        games, rejected = _resolve_games(hello)
        session = AgentSession(_session_id(), name)
        session.configure(hello, games)
        return session, rejected

    def adopt_awaiting(self, agent_name: str, relay_for: Callable[[AgentSession], Relay], *, match_events: bool,
                       images: bool, probes: bool) -> list[AgentSession]:
        """A fresh session of `agent_name` (here or on another process) takes the seats waiting for it
        here: each placeholder relays to it (`relay_for(placeholder)`), with the session's
        capabilities. Returns the placeholders it took."""
        adopted = [p for p in self._awaiting.pop(agent_name, []) if not p.abandoned]
        for placeholder in adopted:
            placeholder.match_events, placeholder.images, placeholder.probes = match_events, images, probes
            placeholder.relay_to(relay_for(placeholder))
        if adopted:
            metrics.RECONNECTS.inc()       # the agent is back for its matches' seats
        return adopted

    def _attach(self, session: AgentSession) -> int:
        if session.alive and session.stream_task is not None:
            session.stream_task.cancel()   # the agent moved to a new stream before the old one was seen to drop
        self._resumable.pop(session.resume_token, None)
        epoch = session.attach()
        session.stream_task = asyncio.current_task()
        self._resumable[session.resume_token] = session
        self.lobby.register(session)
        return epoch

    def _detach(self, session: AgentSession) -> None:
        session.detach()
        self.lobby.remove(session)
        self._expire_later(session)

    def _expire_later(self, session: AgentSession) -> None:
        epoch = session.stream_epoch
        if self.resume_grace > 0:
            asyncio.get_running_loop().call_later(self.resume_grace, self._expire, session, epoch)
        else:
            self._expire(session, epoch)

    def _expire(self, session: AgentSession, epoch: int) -> None:
        if session.alive or session.stream_epoch != epoch:
            return   # resumed in time
        session.abandon()
        self._resumable.pop(session.resume_token, None)
        self.lobby.forget(session)
        waiting = self._awaiting.get(session.agent_name)
        if waiting is not None and session in waiting:
            waiting.remove(session)
            if not waiting:
                del self._awaiting[session.agent_name]
        if session.matches:
            log.info("grace window over; the failure policy takes the seats", session_id=session.session_id,
                     agent=session.agent_name, running_matches=len(session.matches))

    def awaiting_seat(self, record, seat: int) -> "RemoteSeat":
        """A seat of a match resumed after a restart. Resume tokens do not survive a restart, so the
        seats wait, for the grace window, for the agent's next fresh Hello, which takes them all."""
        return RemoteSeat(self.placeholder(record.players[seat]["agent_name"]))

    def placeholder(self, agent_name: str) -> AgentSession:
        """The session in which seats wait for `agent_name` to connect again (one per agent)."""
        for session in self._awaiting.get(agent_name, ()):
            if not session.abandoned and session.relay is None:
                return session
        session = AgentSession(_session_id(), agent_name)
        self.wait_for_agent(session)
        return session

    def wait_for_agent(self, session: AgentSession) -> None:
        """Seats of `session` (a placeholder, or a stand-in whose target's process died) wait the grace
        window for the agent's next fresh Hello, here or on another process."""
        self._awaiting.setdefault(session.agent_name, []).append(session)
        self._expire_later(session)

    async def _check_hello(self, hello: pb.Hello, principal: auth.Principal, context) -> str:
        """Aborts the call when Hello is refused; else returns the name the session plays as: the
        one Hello gives, or the key's agent when Hello gives none."""
        major = hello.protocol_version.split(".")[0]
        if major != PROTOCOL_VERSION.split(".")[0]:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {echo(hello.protocol_version) or '(empty)'} is not supported; "
                f"this server speaks {PROTOCOL_VERSION}",
            )
        name = hello.agent.name or principal.agent_name or ""
        if "admin" in principal.scopes:
            if not name:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    "this admin key belongs to no agent: name the agent in Hello.agent.name")
            try:
                auth.validate_agent_name(name)
            except ValueError:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"invalid agent name {echo(name)!r}: use letters, digits, '-', '_' or '.', "
                                    "at most 64 characters")
            agent = self.store.get_agent(name)
            if agent is not None and agent["house"]:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"{name!r} is a house agent's name")
            self.store.ensure_agent(name)
        elif name != principal.agent_name:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                f"this API key plays as {principal.agent_name!r}; Hello names {echo(name)!r} (leave the name "
                "empty to play as the key's agent)",
            )
        return name

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
            return session.on_probe_answer(message.probe_answer)
        if kind == "hello":
            return pb.Error(code=pb.ERROR_CODE_MALFORMED_MESSAGE, message="Hello may be sent only once, first")
        return pb.Error(code=pb.ERROR_CODE_MALFORMED_MESSAGE, message="empty ConnectRequest: set one field of its oneof")

    @staticmethod
    async def _write(session: AgentSession, epoch: int, context) -> None:
        outbox = session.outbox    # this stream's; a stream that takes over gets its own
        while True:
            message = await outbox.get()
            try:
                await context.write(message)
            except Exception:   # the stream is gone: end its read loop, which detaches the session
                if session.stream_epoch == epoch and session.stream_task is not None:
                    session.stream_task.cancel()
                return


def _answer_none(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def _resolve_games(hello: pb.Hello) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
    """The games offered that the server has (game id -> preset, None for the defaults), and the
    first MAX_REJECTED_LISTED refused ones with why, as (echoed game id, reason)."""
    games: dict[str, str | None] = {}
    rejected: list[tuple[str, str]] = []
    for offer in hello.games:
        game_id, preset = offer.game_id, offer.preset
        try:
            spec = arena_engines.game_spec(game_id)
        except KeyError:
            reason = f"unknown game {echo(game_id)!r} (known: {', '.join(arena_engines.game_ids())})"
        else:
            presets = [p.name for p in spec.presets]
            if not preset or preset in presets:
                games[game_id] = preset or None
                continue
            reason = f"game {game_id!r} has no preset {echo(preset)!r} (known: {', '.join(presets) or 'none'})"
        if len(rejected) < MAX_REJECTED_LISTED:
            rejected.append((echo(game_id), reason))
    return games, rejected


def _session_id() -> str:
    return "s_" + secrets.token_hex(8)


def _now():
    from google.protobuf import timestamp_pb2

    ts = timestamp_pb2.Timestamp()
    ts.GetCurrentTime()
    return ts
