"""One agent session: the AgentService.Connect stream, from handshake to the last match.

The server multiplexes all of the agent's matches over one stream, so the session reads messages
in one loop and answers each DecisionRequest (and Probe) in its own task: a slow decision in one
match never holds up another match or the heartbeats. An agent whose `decide` is a plain function
runs in the session's own thread pool, sized to the matches it plays at once (asyncio's default
pool has only CPU count + 4 threads, which would make decisions of different matches wait for each
other). Everything sent goes through one queue because a gRPC stream takes one write at a time.

When the stream drops (the server is unreachable, restarting, or the connection was reset) the
session opens a new one, with backoff, and presents its resume token: the server then re-sends
MatchStarted and the public events of every running match, and the pending requests with the time
they have left. A server that restarted no longer knows the token and refuses it; the session then
connects with a fresh Hello and the server hands back the agent's seats by name. Re-sent
MatchStarted and events are not passed to the agent twice.

Several addresses may be given (servers sharing one database): the session connects to the first
that answers, resumes on the same one after a drop, and moves on to the next when the one it was on
cannot be reached (a dead process); there it connects afresh, and the agent's seats come back to it
by name, wherever their matches are refereed.

A Decision the server drops because the API key went over its rate limit (an in-band RATE_LIMITED
error naming the decision) is not asked for again: the session sends the same Decision again after
the wait the error quotes, as long as the server may still take it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc, arena_service_pb2, arena_service_pb2_grpc

from . import convert
from .agent import Agent, Choice, MatchView, ProbeView, ResultView, WelcomeView

log = logging.getLogger(__name__)


# Stream failures worth a reconnect: the server went away or the connection broke. A connection cut
# mid-stream (a killed server) surfaces as UNAVAILABLE, or, depending on the moment it breaks, as
# INTERNAL ("Internal error from Core", a reset stream) or UNKNOWN ("Stream removed").
RECONNECTABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN})
# Detect a dead server on a silent stream: ping every 20 s, give up after 10 s without an answer.
CHANNEL_OPTIONS = [("grpc.keepalive_time_ms", 20_000), ("grpc.keepalive_timeout_ms", 10_000)]
# Threads for agents whose decide is a plain function: per match played at once (several seats of one
# match may be asked together), and never fewer than this.
THREADS_PER_MATCH = 4
MIN_THREADS = 32
# The wait a RATE_LIMITED error quotes ("... retry after 0.004 s ..."), and the longest one honoured:
# a longer quote would outlast any decision's deadline (the TypeScript and C++ bots do the same).
RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?) s")
MAX_RESEND_DELAY = 10.0


@dataclass
class _Sent:
    """A Decision sent, kept while the server might still drop it over the rate limit."""

    message: pb.ConnectRequest
    seat: int
    deadline: float | None             # time.monotonic() by which it must arrive; None: no limit


class SessionError(Exception):
    """The session could not start or was ended by the server (unreachable server, refused key,
    unsupported protocol version, dropped stream). `code` is the gRPC status, when there is one."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None, refused: bool = False,
                 unreachable: bool = False):
        super().__init__(message)
        self.code = code
        self.refused = refused      # the server answered the handshake with this error
        self.unreachable = unreachable    # no connection could be made at all


class Session:
    """Plays `agent` on `server` (host:port; or several, comma-separated or a list, of servers sharing a
    database) until `max_matches` matches have ended (None: until the server closes the stream or the
    task is cancelled).

    games: game ids, or (game id, preset) pairs; None offers every game the server lists (with
    ArenaService.ListGames, using the same key) that `agent.can_play` accepts. `preset` is asked for
    each game given by id alone; with games None, only the games that have it are offered.
    name, version and description default to the agent's class attributes; an empty name plays as
    the API key's agent, and a name given must be that agent's.
    on_welcome is called with each Welcome: when the session opens, and again after each reconnect.
    TLS is used when `secure` is set or `root_certificates` (a PEM file) is given; mutual TLS adds
    `client_certificate` and `client_key` (PEM files).
    An agent that does not override `on_event` is sent no MatchEvent ("no_match_events" in Hello):
    every public move is in its requests' observation history anyway.
    on_result is called with each finished match, as it ends. With `reconnect` (the default), a
    stream that drops after the handshake is opened again, resuming the session, up to
    `max_reconnect_attempts` failed attempts in a row, waiting 0.5 s, 1 s, 2 s ... (at most 10 s)
    between them. A Session runs once.
    """

    def __init__(self, agent: Agent, server: str | Iterable[str], api_key: str,
                 games: Iterable[str | tuple[str, str]] | None = None,
                 *, preset: str = "", name: str | None = None, version: str | None = None,
                 description: str | None = None, max_concurrent_matches: int = 1, join_ladder: bool = True,
                 capabilities: Iterable[str] = (), max_matches: int | None = None, secure: bool = False,
                 root_certificates: str | Path | None = None,
                 client_certificate: str | Path | None = None, client_key: str | Path | None = None,
                 connect_timeout: float = 10.0, on_result: Callable[[ResultView], Any] | None = None,
                 on_welcome: Callable[[WelcomeView], Any] | None = None, reconnect: bool = True,
                 max_reconnect_attempts: int = 10):
        self.agent = agent
        self.servers = [a.strip() for a in (server.split(",") if isinstance(server, str) else server) if a.strip()]
        if not self.servers:
            raise ValueError("give at least one server address (host:port)")
        self.server = self.servers[0]      # the address in use now
        # None until the server's list is read, when no games were given.
        self.games = None if games is None else [(g, preset) if isinstance(g, str) else tuple(g) for g in games]
        if self.games == []:
            raise ValueError("offer at least one game, or None for every game the server lists")
        self.preset = preset
        self.name = agent.name if name is None else name
        self.version = agent.version if version is None else version
        self.description = agent.description if description is None else description
        self.max_concurrent_matches = max_concurrent_matches
        self.join_ladder = join_ladder
        self.capabilities = list(capabilities)
        if type(agent).on_event is Agent.on_event and convert.NO_MATCH_EVENTS not in self.capabilities:
            # The agent ignores events, so the server need not send one per move.
            self.capabilities.append(convert.NO_MATCH_EVENTS)
        if type(agent).answer_probe is not Agent.answer_probe and convert.PROBES not in self.capabilities:
            self.capabilities.append(convert.PROBES)       # it answers metric questions
        if agent.wants_images and convert.IMAGES not in self.capabilities:
            self.capabilities.append(convert.IMAGES)       # pictures of the view (Hive's board)
        self.max_matches = max_matches
        if (client_certificate is None) != (client_key is None):
            raise ValueError("mutual TLS needs both client_certificate and client_key")
        self.secure = secure or root_certificates is not None or client_certificate is not None
        self.root_certificates = root_certificates
        self.client_certificate, self.client_key = client_certificate, client_key
        self.connect_timeout = connect_timeout
        self.on_result = on_result
        self.on_welcome = on_welcome
        self.reconnect = reconnect
        self.max_reconnect_attempts = max_reconnect_attempts
        self._metadata = (("authorization", f"Bearer {api_key}"),)
        # The server's latest Welcome. Its resume_token is what a reconnect sends in Hello to take
        # the session's seats back.
        self.welcome: WelcomeView | None = None
        self.reconnects = 0                                 # streams opened again after a drop
        self.results: list[ResultView] = []
        self._matches: dict[str, MatchView] = {}            # match id -> view, while the match runs
        self._seats_started: set[tuple[str, int]] = set()   # (match id, seat) whose MatchStarted was passed on
        self._last_event: dict[str, int] = {}               # match id -> sequence of the last event passed on
        self._resume = False                                # present the resume token in the next Hello
        self._failed_attempts = 0                           # reconnect attempts since the last handshake
        self._outbox: asyncio.Queue[pb.ConnectRequest] = asyncio.Queue()
        self._tasks: set[asyncio.Task] = set()
        self._sent: dict[tuple[str, int], _Sent] = {}       # (match id, decision id) -> Decision sent
        self._threads: ThreadPoolExecutor | None = None     # for plain (not async) agent methods, made when needed

    async def run(self) -> list[ResultView]:
        """Plays until done and returns the finished matches; raises SessionError on failure."""
        try:
            return await self._run()
        finally:
            if self._threads is not None:
                self._threads.shutdown(wait=False, cancel_futures=True)
                self._threads = None

    async def _run(self) -> list[ResultView]:
        untried = len(self.servers) - 1       # other addresses for the first connection
        while True:
            try:
                await self._stream()
                return self.results
            except SessionError as e:
                if self.welcome is None:
                    if e.unreachable and untried > 0:
                        untried -= 1
                        self._next_server()
                        continue
                    raise
                if not self.reconnect:
                    raise
                if self._resume and e.refused and e.code != grpc.StatusCode.UNAVAILABLE:
                    # The server is up but did not take the token (NOT_FOUND after a restart, or that
                    # refusal masked as INTERNAL by a race in the transport): a fresh Hello gets the
                    # agent's seats back by name, or says plainly why not.
                    log.warning("the server cannot resume the session (%s); connecting afresh", e)
                    self._resume = False
                    continue
                if e.code not in RECONNECTABLE or self._failed_attempts >= self.max_reconnect_attempts:
                    raise
                moved = e.unreachable and len(self.servers) > 1
                if moved:           # that process is gone: the next address, where a fresh Hello gets the seats back
                    self._next_server()
                # Each address is tried at once after the one before it failed; a whole round backs off.
                rounds, position = divmod(self._failed_attempts, len(self.servers))
                delay = 0.0 if moved and position < len(self.servers) - 1 else min(10.0, 0.5 * 2 ** rounds)
                self._failed_attempts += 1
                log.warning("%s; reconnecting to %s in %.1f s (attempt %d of %d)", e, self.server, delay,
                            self._failed_attempts, self.max_reconnect_attempts)
                await asyncio.sleep(delay)

    def _next_server(self) -> None:
        self.server = self.servers[(self.servers.index(self.server) + 1) % len(self.servers)]
        self._resume = False       # a resume token is good only on the server that issued it

    async def _stream(self) -> None:
        """One stream, from connecting to its end; raises SessionError when it fails."""
        async with self._channel() as channel:
            await self._connected(channel)
            if self.games is None:
                self.games = await self._server_games(channel)
            call = agent_service_pb2_grpc.AgentServiceStub(channel).Connect(metadata=self._metadata)
            self._outbox = asyncio.Queue()     # nothing queued for a dropped stream is sent on a new one
            self._sent.clear()                 # a resumed session is asked again for what is pending
            self._spawn(self._write(call))
            reconnecting, resuming, handshake_done = self.welcome is not None, self._resume, False
            try:
                self.welcome = await self._handshake(call)
                handshake_done, self._resume, self._failed_attempts = True, True, 0
                if reconnecting:
                    self.reconnects += 1
                    log.info("reconnected: session %s %s", self.welcome.session_id,
                             "resumed" if resuming else "opened afresh")
                if self.on_welcome is not None:
                    self.on_welcome(self.welcome)
                self._spawn(self._heartbeats(self.welcome.heartbeat_interval))
                await self._serve(call)
            except grpc.aio.AioRpcError as e:
                stage = "ended the session" if handshake_done else "refused the session"
                raise SessionError(f"{self.server} {stage} ({e.code().name}): {e.details()}", e.code(),
                                   refused=not handshake_done) from e
            finally:
                call.cancel()
                # Requests in progress are dropped: a resumed session is sent the pending ones again.
                tasks = list(self._tasks)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    async def _connected(self, channel: grpc.aio.Channel) -> None:
        """Waits for the channel to connect; raises SessionError (unreachable) after connect_timeout, or at
        the first failed attempt when there are other addresses to try."""
        async def ready() -> None:
            state = channel.get_state(try_to_connect=True)
            while state != grpc.ChannelConnectivity.READY:
                if state == grpc.ChannelConnectivity.TRANSIENT_FAILURE and len(self.servers) > 1:
                    raise SessionError(f"cannot reach {self.server}", grpc.StatusCode.UNAVAILABLE, unreachable=True)
                await channel.wait_for_state_change(state)
                state = channel.get_state(try_to_connect=True)

        try:
            await asyncio.wait_for(ready(), self.connect_timeout)
        except asyncio.TimeoutError:
            raise SessionError(f"cannot reach {self.server} within {self.connect_timeout:g} s",
                               grpc.StatusCode.UNAVAILABLE, unreachable=True) from None

    def _channel(self) -> grpc.aio.Channel:
        if not self.secure:
            return grpc.aio.insecure_channel(self.server, options=CHANNEL_OPTIONS)
        roots, key, chain = (Path(f).read_bytes() if f else None
                             for f in (self.root_certificates, self.client_key, self.client_certificate))
        return grpc.aio.secure_channel(self.server, grpc.ssl_channel_credentials(roots, key, chain),
                                       options=CHANNEL_OPTIONS)

    async def _server_games(self, channel) -> list[tuple[str, str]]:
        """Every game the server lists that the agent can play (with the preset, when one is set)."""
        try:
            listed = await arena_service_pb2_grpc.ArenaServiceStub(channel).ListGames(
                arena_service_pb2.ListGamesRequest(), metadata=self._metadata, timeout=self.connect_timeout)
        except grpc.aio.AioRpcError as e:
            raise SessionError(f"{self.server} refused to list its games ({e.code().name}): {e.details()}; "
                               "name the games to play instead", e.code()) from e
        games = [convert.game(spec) for spec in listed.games]
        chosen = [(g.game_id, self.preset) for g in games
                  if (not self.preset or self.preset in g.presets) and self.agent.can_play(g)]
        if not chosen:
            preset = f" with the preset {self.preset!r}" if self.preset else ""
            raise SessionError(f"none of the {len(games)} games {self.server} offers{preset} suits this agent")
        return chosen

    def _hello(self) -> pb.ConnectRequest:
        return convert.hello(self.name, self.version, self.description, self.games, self.max_concurrent_matches,
                             self.join_ladder, self.capabilities,
                             resume_token=self.welcome.resume_token if self._resume and self.welcome else "")

    async def _write(self, call) -> None:
        """The stream's only writer. It stops quietly when the stream ends; the read loop reports why."""
        try:
            while True:
                await call.write(await self._outbox.get())
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass

    async def _handshake(self, call) -> WelcomeView:
        self._outbox.put_nowait(self._hello())
        first = await call.read()
        if first is grpc.aio.EOF or first.WhichOneof("message") != "welcome":
            raise SessionError(f"{self.server} did not answer Hello with Welcome")
        welcome = convert.welcome(first.welcome, self.name)
        for game, reason in welcome.rejected_games.items():
            log.warning("the server refused game %s: %s", game, reason)
        if not welcome.accepted_games:
            raise SessionError(f"{self.server} accepted none of the offered games: {welcome.rejected_games}")
        log.info("session %s on %s as %r: games %s", welcome.session_id, welcome.server_id, welcome.agent_name,
                 ", ".join(welcome.accepted_games))
        return welcome

    async def _serve(self, call) -> None:
        while self.max_matches is None or len(self.results) < self.max_matches:
            message = await call.read()
            if message is grpc.aio.EOF:
                log.info("the server closed the session")
                return
            await self._dispatch(message)

    async def _dispatch(self, message: pb.ConnectResponse) -> None:
        kind = message.WhichOneof("message")
        if kind == "decision_request":
            request = message.decision_request
            self._forget_sent(request.match_id, lambda sent: sent.seat == request.seat)   # that seat moved on
            self._spawn(self._decide(request))
        elif kind == "probe":
            self._spawn(self._answer_probe(convert.probe(message.probe)))
        elif kind == "match_started":
            match = convert.match_started(message.match_started)
            self._matches[match.match_id] = match
            if (match.match_id, match.seat) not in self._seats_started:    # not a resumed session's snapshot
                self._seats_started.add((match.match_id, match.seat))
                await self._notify(self.agent.on_match_start, match)
        elif kind == "event":
            event = convert.event(message.event)
            if event.sequence > self._last_event.get(event.match_id, -1):
                self._last_event[event.match_id] = event.sequence
                await self._notify(self.agent.on_event, event)
        elif kind == "match_ended":
            result = convert.match_ended(message.match_ended)
            match = self._matches.pop(result.match_id, None)
            if not result.players and match is not None:
                result = replace(result, players=match.players)
            self._forget_sent(result.match_id, lambda sent: True)
            self._seats_started.discard((result.match_id, result.seat))
            self._last_event.pop(result.match_id, None)
            self.results.append(result)
            if self.on_result is not None:
                self.on_result(result)
            await self._notify(self.agent.on_match_end, result)
        elif kind == "error":
            error = convert.error(message.error)
            sent = self._sent.get((error.match_id, error.decision_id))
            if error.code == "rate_limited" and sent is not None:
                self._spawn(self._resend(error.match_id, error.decision_id, _retry_after(error.message)))
            else:
                log.warning("server error %s for match %s decision %d: %s", error.code, error.match_id,
                            error.decision_id, error.message)
            await self._notify(self.agent.on_error, error)
        elif kind != "heartbeat":
            log.warning("ignoring unexpected %s message", kind or "empty")

    async def _decide(self, message: pb.DecisionRequest) -> None:
        """Answers one request, unless the agent fails or overruns: the server refuses late answers
        as stale and applies its failure policy either way, so sending one would only add noise."""
        started = time.monotonic()
        request = convert.decision_request(message, self._matches.get(message.match_id))
        try:
            choice = await self._call(self.agent.decide, request)
            if not isinstance(choice, Choice):
                raise TypeError(f"decide returned {choice!r}, not a Choice")
        except Exception:
            log.exception("the agent failed to decide match %s decision %d; nothing sent", request.match_id,
                          request.decision_id)
            return
        elapsed = time.monotonic() - started
        if request.time_remaining is not None and elapsed > request.time_remaining:
            log.warning("match %s decision %d took %.2f s, over its %.2f s limit; not sent", request.match_id,
                        request.decision_id, elapsed, request.time_remaining)
            return
        decision = convert.decision(request, choice, elapsed)
        deadline = None if request.time_remaining is None else started + request.time_remaining
        self._sent[request.match_id, request.decision_id] = _Sent(decision, request.seat, deadline)
        self._outbox.put_nowait(decision)

    async def _resend(self, match_id: str, decision_id: int, delay: float) -> None:
        """Sends a Decision the rate limit dropped again after `delay` seconds, unless the match has
        moved on meanwhile or its deadline has passed. Once per refusal: a resend the limit drops
        too comes back as a refusal of its own."""
        log.info("match %s decision %d was dropped over the rate limit; sending it again in %.3f s", match_id,
                 decision_id, delay)
        await asyncio.sleep(delay)
        sent = self._sent.get((match_id, decision_id))
        if sent is None:
            return
        if sent.deadline is not None and time.monotonic() >= sent.deadline:
            del self._sent[match_id, decision_id]
            log.warning("match %s decision %d, dropped over the rate limit, could not be sent again in time", match_id,
                        decision_id)
            return
        self._outbox.put_nowait(sent.message)

    def _forget_sent(self, match_id: str, which: Callable[[_Sent], bool]) -> None:
        for key in [key for key, sent in self._sent.items() if key[0] == match_id and which(sent)]:
            del self._sent[key]

    async def _answer_probe(self, probe: ProbeView) -> None:
        """Late answers are sent anyway: the server ignores them, and they never affect the game."""
        try:
            text = await self._call(self.agent.answer_probe, probe)
        except Exception:
            log.exception("the agent failed to answer probe %s of match %s", probe.probe_id, probe.match_id)
            return
        if text is not None:
            self._outbox.put_nowait(convert.probe_answer(probe, text))

    async def _heartbeats(self, interval: float) -> None:
        while interval > 0:
            await asyncio.sleep(interval)
            self._outbox.put_nowait(convert.heartbeat())

    async def _call(self, method, view):
        """Awaits an async agent method; runs a plain one in a worker thread of the session's pool."""
        if inspect.iscoroutinefunction(method):
            return await method(view)
        if self._threads is None:
            self._threads = ThreadPoolExecutor(max(MIN_THREADS, THREADS_PER_MATCH * self.max_concurrent_matches),
                                               thread_name_prefix="arena-agent")
        call = functools.partial(contextvars.copy_context().run, method, view)
        return await asyncio.get_running_loop().run_in_executor(self._threads, call)

    @staticmethod
    async def _notify(hook, view) -> None:
        """Runs a notification hook in order on the loop; its failure is logged, never fatal."""
        try:
            outcome = hook(view)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            log.exception("%s failed", hook.__name__)

    def _spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _retry_after(message: str) -> float:
    """The wait a RATE_LIMITED message quotes, at most MAX_RESEND_DELAY; 1 s when it quotes none."""
    quoted = RETRY_AFTER.search(message)
    return min(float(quoted.group(1)), MAX_RESEND_DELAY) if quoted else 1.0


def run_agent(agent: Agent, server: str, api_key: str, games: Iterable[str | tuple[str, str]] | None = None,
              **options: Any) -> list[ResultView]:
    """Blocking convenience: runs one Session (options as its keyword arguments) and returns its results;
    games None offers every game the server lists (see Session)."""
    return asyncio.run(Session(agent, server, api_key, games, **options).run())
