"""What the checks share during one run: the operator's settings, the channel, what was learnt about
the server (its games, the key's agent, the lab), the matches the suite played, and how a check gets
a seat in a match: a tournament against a house agent when an admin key is given, else the server's
ladder (an agent that joins it alone is paired with a house agent after a short delay)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field

import grpc
from google.protobuf import duration_pb2

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import arena_service_pb2 as apb
from arena.v1 import arena_service_pb2_grpc, federation_pb2_grpc, game_pb2, match_pb2, spectator_service_pb2_grpc

from .registry import Fail, Skip
from .wire import AgentStream, Endpoint, bearer, hello, kind, match_of, open_stream, status_of

PLAY_GAMES = ("tic_tac_toe", "connect_four", "nim", "breakthrough")   # preferred, when the server has them
HIDDEN_GAME = "kuhn_poker"


@dataclass
class Settings:
    """What the operator gives (`arena-server compliance` flags)."""

    endpoint: Endpoint
    key: str                          # play scope: the agent side, and reads
    admin_key: str = ""               # optional: tournaments against a house agent, a spectate-only key
    game: str = ""                    # the game decisions are played in (default: tic_tac_toe, or the first fit)
    require_federation: bool = False  # a server without FederationService fails instead of "not offered"
    read_only: bool = False           # the key only reads (an aggregator's spectate key): no check plays
    max_message_bytes: int = 4 << 20  # the server's message size limit (its documented default)
    max_concurrent_per_agent: int = 0 # the server's cap on an agent's matches over all its sessions (0: not given)
    rate_calls: int = 300             # calls the rate-limit check may spend looking for the limit
    match_wait: float = 15.0          # how long a check waits to be seated before it gives up
    reply_timeout: float = 5.0        # how long any single reply may take
    check_timeout: float = 90.0       # how long one check may take in all


@dataclass
class Context:
    settings: Settings
    channel: grpc.aio.Channel = None
    agent_name: str = ""                                    # the key's agent (Welcome.agent_name)
    spectate_key: str = ""                                  # a spectate-only key, when the admin key made one
    finished: list[match_pb2.MatchInfo] = field(default_factory=list)   # matches the suite played to their end
    _games: dict | None = None
    _house: str | None = None
    _lab: object = None                                     # GetLabInfo's answer, once asked
    _no_ladder: str = ""                                    # why the ladder seated nobody, once it did not

    def __post_init__(self):
        if self.channel is None:
            self.channel = self.settings.endpoint.channel()

    async def close(self) -> None:
        await self.channel.close()

    # ---- stubs and keys ---------------------------------------------------------------------------------
    @property
    def arena(self):
        return arena_service_pb2_grpc.ArenaServiceStub(self.channel)

    @property
    def spectator(self):
        return spectator_service_pb2_grpc.SpectatorServiceStub(self.channel)

    @property
    def federation(self):
        return federation_pb2_grpc.FederationServiceStub(self.channel)

    @property
    def play(self) -> list[tuple[str, str]]:
        return bearer(self.settings.key)

    @property
    def read(self) -> list[tuple[str, str]]:
        """The key reads go with: the spectate-only key when one was made (the scope the proto names for
        reading), else the play key."""
        return bearer(self.spectate_key or self.settings.key)

    def admin(self, why: str) -> list[tuple[str, str]]:
        """The admin key's metadata; Skip (saying what it was needed for) without one."""
        if not self.settings.admin_key:
            raise Skip(f"needs --admin-key ({why})")
        return bearer(self.settings.admin_key)

    @property
    def timeout(self) -> float:
        return self.settings.reply_timeout

    # ---- what the server offers ---------------------------------------------------------------------------
    async def games(self) -> dict[str, game_pb2.GameSpec]:
        """ListGames with the play key (a play key also reads). Fail when the server will not list them."""
        if self._games is None:
            try:
                listed = await self.arena.ListGames(apb.ListGamesRequest(), metadata=self.play, timeout=self.timeout)
            except grpc.aio.AioRpcError as e:
                raise Fail(f"ListGames with the play key was refused: {status_of(e)}") from None
            self._games = {g.game_id: g for g in listed.games}
        return self._games

    async def play_game(self) -> str:
        """The game decisions are played in: --game, else a two-player sequential game without dialogue."""
        games = await self.games()
        if self.settings.game:
            if self.settings.game not in games:
                raise Skip(f"the server has no game {self.settings.game!r} (--game)")
            return self.settings.game
        for game_id in PLAY_GAMES:
            if game_id in games:
                return game_id
        for g in games.values():
            if g.min_players <= 2 <= g.max_players and g.dynamics == game_pb2.DYNAMICS_SEQUENTIAL and not g.dialogue:
                return g.game_id
        raise Skip("the server lists no two-player sequential game without dialogue (pick one with --game)")

    async def hidden_game(self) -> str:
        if HIDDEN_GAME not in await self.games():
            raise Skip(f"the server has no {HIDDEN_GAME} (the hidden-information game this check knows the rules of)")
        return HIDDEN_GAME

    async def key_agent(self) -> str:
        """The name the play key's agent plays as: Welcome.agent_name of a Hello that names none."""
        if not self.agent_name:
            stream = await self.connect(hello())
            try:
                welcome = await stream.welcome(self.timeout)
            finally:
                await stream.close()
            if not welcome.agent_name:
                raise Fail("Welcome.agent_name is empty for a Hello that names no agent (it must name the key's agent)")
            self.agent_name = welcome.agent_name
        return self.agent_name

    # ---- agent streams --------------------------------------------------------------------------------------
    async def connect(self, first: pb.ConnectRequest | None, key: str | None = None, **kw) -> AgentStream:
        """A new Connect call with `key` (default: the play key), sending `first` when given. With a
        read-only key (--read-only) a check that needs the play key skips."""
        if key is None and self.settings.read_only:
            raise Skip("needs a key with the play scope (--read-only: the key given only reads)")
        return await open_stream(self.channel, self.settings.key if key is None else key, first, **kw)

    @contextlib.asynccontextmanager
    async def session(self, *games: str, **hello_options):
        """A stream that has been welcomed; closed on leaving."""
        stream = await self.connect(hello(games=list(games), **hello_options))
        try:
            welcome = await stream.welcome(self.timeout)
            if welcome.agent_name:
                self.agent_name = welcome.agent_name
            yield stream
        finally:
            await stream.close()

    @contextlib.asynccontextmanager
    async def seated(self, game: str, *, purpose: str, capacity: int = 1, per_decision: float = 10.0,
                     max_retries: int = 3, on_failure: int = match_pb2.FAILURE_ACTION_RANDOM_LEGAL,
                     capabilities: tuple[str, ...] = (), matches: int = 1):
        """A welcomed stream whose agent is about to be seated in matches of `game` against a house
        agent: through a tournament (with the admin key; its time control and failure policy are the
        ones given) or through the ladder (the server's own). Leaving cancels the tournament, or
        resigns the ladder matches still running, and closes the stream."""
        seat = Seat(self, game, purpose)
        use_tournament = bool(self.settings.admin_key) and await self.house_agent() is not None
        seat.stream = await self.connect(hello(games=[game], capacity=capacity, join_ladder=not use_tournament,
                                               capabilities=capabilities))
        try:
            welcome = await seat.stream.welcome(self.timeout)
            self.agent_name = welcome.agent_name or self.agent_name
            if game not in welcome.accepted_games:
                raise Fail(f"Welcome did not accept {game!r}, which ListGames lists")
            if use_tournament:
                seat.tournament_id = await self._tournament(game, per_decision, max_retries, on_failure, matches)
            yield seat
        finally:
            await seat.leave()

    async def house_agent(self) -> str | None:
        """A house agent to play against: `random` if the server has it, else any (ListAgents)."""
        if self._house is None:
            try:
                agents = (await self.arena.ListAgents(apb.ListAgentsRequest(), metadata=self.admin("tournaments"),
                                                      timeout=self.timeout)).agents
            except grpc.aio.AioRpcError as e:
                raise Fail(f"ListAgents with the admin key was refused: {status_of(e)}") from None
            house = [a.name for a in agents if a.house_agent]
            self._house = "random" if "random" in house else (house[0] if house else "")
        return self._house or None

    async def _tournament(self, game: str, per_decision: float, max_retries: int, on_failure: int,
                          matches: int = 1) -> str:
        me = self.agent_name or await self.key_agent()
        t = apb.Tournament(name=f"compliance-{secrets.token_hex(3)}", game_id=game, agents=[me, await self.house_agent()],
                           games_per_pairing=matches, on_absent=apb.ABSENT_AGENT_RULE_FAILURE_POLICY,
                           failure_policy=match_pb2.FailurePolicy(max_retries=max_retries, on_failure=on_failure))
        t.time_control.per_decision.CopyFrom(seconds(per_decision))
        t.absent_timeout.CopyFrom(seconds(30))
        try:
            created = await self.arena.CreateTournament(apb.CreateTournamentRequest(tournament=t),
                                                        metadata=self.admin("tournaments"), timeout=self.timeout)
        except grpc.aio.AioRpcError as e:
            raise Fail(f"CreateTournament with the admin key was refused: {status_of(e)}") from None
        return created.tournament.tournament_id

    # ---- reads used by several checks ---------------------------------------------------------------------------
    async def get_match(self, match_id: str) -> apb.GetMatchResponse:
        try:
            return await self.arena.GetMatch(apb.GetMatchRequest(match_id=match_id), metadata=self.play,
                                             timeout=self.timeout)
        except grpc.aio.AioRpcError as e:
            raise Fail(f"GetMatch({match_id}) was refused: {status_of(e)}") from None

    async def a_finished_match(self, purpose: str) -> match_pb2.MatchInfo:
        """A finished match: one the suite played, else (with a read-only key) the newest finished one the
        server lists, else one the suite plays now."""
        if self.finished:
            return self.finished[-1]
        if self.settings.read_only:
            try:
                listed = await self.arena.ListMatches(apb.ListMatchesRequest(status=match_pb2.MATCH_STATUS_FINISHED,
                                                                             page_size=1),
                                                      metadata=self.read, timeout=self.timeout)
            except grpc.aio.AioRpcError as e:
                raise Fail(f"ListMatches of finished matches was refused: {status_of(e)}") from None
            if not listed.matches:
                raise Skip(f"the server lists no finished match (needed {purpose}; a read-only key plays none)")
            return listed.matches[0]
        game = await self.play_game()
        async with self.seated(game, purpose=purpose) as seat:
            started = await seat.match_started()
            ended = await seat.play_out(started.match.match_id)
        return ended.match


def seconds(value: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(value * 1e9))
    return d


def first_legal(request: pb.DecisionRequest) -> dict:
    if not request.legal_actions:
        raise Skip("a decision offered no legal action ids (a text-only decision); pick another game with --game")
    return {"action_id": request.legal_actions[0].id}


@dataclass
class Seat:
    """A check's place in a match: the stream, and the tournament that seats it (none on the ladder)."""

    ctx: Context
    game: str
    purpose: str
    stream: AgentStream | None = None
    tournament_id: str = ""

    @property
    def timeout(self) -> float:
        return self.ctx.settings.reply_timeout

    async def match_started(self) -> pb.MatchStarted:
        """The next MatchStarted. Without a tournament, a server whose ladder seats nobody makes the
        check skip (once: later checks skip at once)."""
        if not self.tournament_id and self.ctx._no_ladder:
            raise Skip(self.ctx._no_ladder)
        wait = self.ctx.settings.match_wait
        try:
            return (await self.stream.next(lambda m: kind(m) == "match_started", wait, "MatchStarted")).match_started
        except Fail:
            if self.tournament_id or self.stream.status is not None:
                raise
            self.ctx._no_ladder = (f"the ladder seated the agent in no {self.game} match within {wait:g} s "
                                   f"(give --admin-key to start tournaments against a house agent; needed {self.purpose})")
            raise Skip(self.ctx._no_ladder) from None

    async def request(self, match_id: str, timeout: float | None = None) -> pb.DecisionRequest:
        """The next DecisionRequest of the match; Fail if the match ends first."""
        message = await self.stream.next(
            lambda m: match_of(m) == match_id and kind(m) in ("decision_request", "match_ended"),
            timeout or self.per_decision_wait(), f"DecisionRequest of {match_id}")
        if kind(message) == "match_ended":
            raise Fail(f"match {match_id} ended ({reason_name(message.match_ended.match)}) before the decision "
                       "the check needed")
        return message.decision_request

    def per_decision_wait(self) -> float:
        return self.timeout + 30.0

    async def play_out(self, match_id: str, choose=first_legal, timeout: float = 120.0) -> pb.MatchEnded:
        """Answers every DecisionRequest of the match with choose(request) (the keyword arguments
        of a Decision's choice) until MatchEnded, which it returns and remembers when finished."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise Fail(f"match {match_id} did not end within {timeout:g} s")
            message = await self.stream.next(
                lambda m: match_of(m) == match_id and kind(m) in ("decision_request", "match_ended"),
                min(left, self.per_decision_wait()), f"the next DecisionRequest or MatchEnded of {match_id}")
            if kind(message) == "match_ended":
                if message.match_ended.match.status == match_pb2.MATCH_STATUS_FINISHED:
                    self.ctx.finished.append(message.match_ended.match)
                return message.match_ended
            await self.stream.decide(message.decision_request, **choose(message.decision_request))

    def our_errors(self, match_id: str) -> list[pb.Error]:
        return [e for e in self.stream.errors() if e.match_id == match_id]

    async def leave(self) -> None:
        if self.stream is None:
            return
        if self.tournament_id:
            with contextlib.suppress(grpc.aio.AioRpcError, Skip):
                await self.ctx.arena.CancelTournament(apb.CancelTournamentRequest(tournament_id=self.tournament_id),
                                                      metadata=self.ctx.admin("cleanup"), timeout=self.timeout)
        elif self.stream.status is None:
            ended = {m.match_ended.match.match_id for m in self.stream.received if kind(m) == "match_ended"}
            for m in self.stream.received:
                if kind(m) == "match_started" and m.match_started.match.match_id not in ended:
                    await self.stream.send(pb.ConnectRequest(resign=pb.Resign(
                        match_id=m.match_started.match.match_id, seat=m.match_started.seat)))
            await asyncio.sleep(0.1)
        await self.stream.close()


def reason_name(match: match_pb2.MatchInfo) -> str:
    return match_pb2.EndReason.Name(match.result.reason) if match.result.reason in match_pb2.EndReason.values() \
        else str(match.result.reason)
