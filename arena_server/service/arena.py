"""ArenaService: games, agents and keys, tournaments, matches and leaderboards."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import TYPE_CHECKING

import grpc

import arena_engines
from arena.v1 import arena_service_pb2 as pb
from arena.v1 import arena_service_pb2_grpc, match_pb2

from .. import auth, convert
from ..ratings import trueskill_leaderboard
from ..referee import Rules
from ..store import Store
from ..tournaments import TournamentConfig, TournamentRunner, round_robin

if TYPE_CHECKING:
    from ..coordinator import Coordinator
    from ..lobby import Lobby

SCOPE_NAMES = {pb.SCOPE_PLAY: "play", pb.SCOPE_SPECTATE: "spectate", pb.SCOPE_ADMIN: "admin"}
TOURNAMENT_STATUS = {
    "running": pb.TOURNAMENT_STATUS_RUNNING, "finished": pb.TOURNAMENT_STATUS_FINISHED,
    "failed": pb.TOURNAMENT_STATUS_FAILED,
}


class ArenaService(arena_service_pb2_grpc.ArenaServiceServicer):
    def __init__(self, store: Store, lobby: "Lobby", coordinator: "Coordinator"):
        self.store = store
        self.lobby = lobby
        self.coordinator = coordinator
        self.tournament_tasks: dict[str, asyncio.Task] = {}

    # ---- games and agents ---------------------------------------------------------------------------
    async def ListGames(self, request, context):
        await auth.require(self.store, context, "spectate")
        return pb.ListGamesResponse(games=[convert.game_spec(arena_engines.game_spec(g)) for g in arena_engines.game_ids()])

    async def RegisterAgent(self, request, context):
        await auth.require(self.store, context, "admin")
        try:
            auth.validate_agent_name(request.name)
        except ValueError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        if self.store.get_agent(request.name) is not None:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, f"agent {request.name!r} is already registered")
        self.store.add_agent(request.name, request.description)
        key, _ = auth.create_key(self.store, agent_name=request.name, scopes=["play"], label="registration")
        return pb.RegisterAgentResponse(agent=self._agent(self.store.get_agent(request.name)), api_key=key)

    async def ListAgents(self, request, context):
        await auth.require(self.store, context, "spectate")
        return pb.ListAgentsResponse(agents=[self._agent(row) for row in self.store.list_agents()])

    async def CreateApiKey(self, request, context):
        await auth.require(self.store, context, "admin")
        scopes = [SCOPE_NAMES.get(s) for s in request.scopes]
        if None in scopes or not scopes:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "give one or more scopes: PLAY, SPECTATE, ADMIN")
        try:
            key, key_id = auth.create_key(self.store, agent_name=request.agent_name or None, scopes=scopes,
                                          label=request.label)
        except ValueError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        return pb.CreateApiKeyResponse(api_key=key, key_id=key_id)

    def _agent(self, row) -> pb.Agent:
        return pb.Agent(name=row["name"], description=row["description"], house_agent=bool(row["house"]),
                        created_at=convert.timestamp(row["created_at"]),
                        connected=row["name"] in self.lobby.connected_agents())

    # ---- tournaments ------------------------------------------------------------------------------------
    async def CreateTournament(self, request, context):
        await auth.require(self.store, context, "admin")
        t = request.tournament
        policy = t.failure_policy
        rules = Rules(
            per_decision=t.time_control.per_decision.ToNanoseconds() / 1e9 or self.coordinator.default_rules.per_decision,
            max_retries=policy.max_retries,
            on_failure=convert.FAILURE_ACTION_NAMES.get(policy.on_failure, "random_legal"),
            max_replays=policy.max_replays,
        )
        config = TournamentConfig(
            name=t.name or "tournament", game_id=t.game_id, agents=list(t.agents),
            parameters=convert.from_struct(t.parameters), preset=request.preset or None,
            games_per_pairing=t.games_per_pairing or 1, players_per_match=t.players_per_match, rules=rules,
            seed=t.seed,
        )
        try:
            config.validate()
        except (KeyError, ValueError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e.args[0]))
        unknown = [a for a in config.agents if self.store.get_agent(a) is None]
        if unknown:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown agents: {', '.join(unknown)}")
        tournament_id = self.start_tournament(config)
        return pb.CreateTournamentResponse(tournament=self._tournament(tournament_id))

    def start_tournament(self, config: TournamentConfig) -> str:
        tournament_id = "t_" + secrets.token_hex(6)
        self.store.add_tournament(tournament_id, config.to_dict(), "running")
        runner = TournamentRunner(tournament_id, config, self.store, self.lobby, self.coordinator)
        self.tournament_tasks[tournament_id] = asyncio.create_task(runner.run())
        return tournament_id

    async def GetTournament(self, request, context):
        await auth.require(self.store, context, "spectate")
        if self.store.get_tournament(request.tournament_id) is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {request.tournament_id!r}")
        return pb.GetTournamentResponse(tournament=self._tournament(request.tournament_id))

    def _tournament(self, tournament_id: str) -> pb.Tournament:
        row = self.store.get_tournament(tournament_id)
        config = TournamentConfig.from_dict(json.loads(row["config"]))
        counts = self.store.tournament_counts(tournament_id)
        total = len(round_robin(config.agents, config.players_per_match, config.games_per_pairing))
        t = pb.Tournament(
            tournament_id=tournament_id, name=config.name, game_id=config.game_id,
            parameters=convert.to_struct(config.parameters), agents=config.agents,
            format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN, games_per_pairing=config.games_per_pairing,
            players_per_match=config.players_per_match, status=TOURNAMENT_STATUS[row["status"]],
            matches_total=total, matches_finished=counts.get("finished", 0), matches_void=counts.get("void", 0),
            error=row["error"], created_at=convert.timestamp(row["created_at"]), seed=config.seed,
            failure_policy=match_pb2.FailurePolicy(
                max_retries=config.rules.max_retries, on_failure=convert.FAILURE_ACTIONS[config.rules.on_failure],
                max_replays=config.rules.max_replays),
        )
        t.time_control.per_decision.FromNanoseconds(int(config.rules.per_decision * 1e9))
        return t

    # ---- matches --------------------------------------------------------------------------------------------
    async def ListMatches(self, request, context):
        await auth.require(self.store, context, "spectate")
        limit = min(request.page_size or 100, 1000)
        before = None
        if request.page_token:
            try:
                before = float(request.page_token)
            except ValueError:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "invalid page_token")
        matches = self.store.list_matches(
            tournament_id=request.tournament_id, game_id=request.game_id, agent_name=request.agent_name,
            status=convert.MATCH_STATUS_NAMES.get(request.status, ""), limit=limit + 1, before=before,
        )
        next_token = repr(matches[limit - 1].created_at) if len(matches) > limit else ""
        return pb.ListMatchesResponse(matches=[convert.match_info(m, reveal_seed=True) for m in matches[:limit]],
                                      next_page_token=next_token)

    async def GetMatch(self, request, context):
        await auth.require(self.store, context, "spectate")
        record = self.store.get_match(request.match_id)
        if record is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        ended = record.status in ("finished", "void")
        entries = self.store.read_log(record.match_id, public_only=not ended)
        log = [pb.MatchLogEntry(sequence=e.seq, kind=e.kind, data=convert.to_struct(e.data),
                                time=convert.timestamp(e.time)) for e in entries]
        events = [convert.event_from_log(record.match_id, e) for e in entries if e.kind == "event"]
        return pb.GetMatchResponse(match=convert.match_info(record, reveal_seed=True), log=log, events=events)

    # ---- leaderboards ----------------------------------------------------------------------------------------
    async def GetLeaderboard(self, request, context):
        await auth.require(self.store, context, "spectate")
        if request.game_id and request.game_id not in arena_engines.game_ids():
            await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown game {request.game_id!r}")
        matches = list(self.store.finished_matches(game_id=request.game_id, tournament_id=request.tournament_id))
        rows = trueskill_leaderboard(matches)
        return pb.GetLeaderboardResponse(
            method=pb.RATING_METHOD_TRUESKILL, matches_counted=len(matches),
            entries=[pb.LeaderboardEntry(rank=r.rank, agent_name=r.agent_name, rating=r.rating, lower=r.lower,
                                         upper=r.upper, matches=r.matches, wins=r.wins, draws=r.draws,
                                         losses=r.losses) for r in rows],
        )
