"""ArenaService: games, agents and keys, tournaments, matches and leaderboards."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import TYPE_CHECKING, Callable

import grpc

import arena_engines
from arena.v1 import arena_service_pb2 as pb
from arena.v1 import arena_service_pb2_grpc, match_pb2

from .. import auth, convert
from ..ratings import BTOptions, EloOptions, Leaderboard, LeaderboardQuery, compute_leaderboard
from ..referee import Rules
from ..store import Store
from ..suites import SUITES
from ..tournaments import TournamentConfig, TournamentRunner
from ..tournaments.runner import DEFAULT_ABSENT_TIMEOUT, Waiting

if TYPE_CHECKING:
    from ..coordinator import Coordinator
    from ..lobby import Lobby

SCOPE_NAMES = {pb.SCOPE_PLAY: "play", pb.SCOPE_SPECTATE: "spectate", pb.SCOPE_ADMIN: "admin"}
FORMATS = {"round_robin": pb.TOURNAMENT_FORMAT_ROUND_ROBIN, "gauntlet": pb.TOURNAMENT_FORMAT_GAUNTLET,
           "self_play": pb.TOURNAMENT_FORMAT_SELF_PLAY, "sampled": pb.TOURNAMENT_FORMAT_SAMPLED,
           "listed": pb.TOURNAMENT_FORMAT_LISTED}
FORMAT_NAMES = {v: k for k, v in FORMATS.items()} | {pb.TOURNAMENT_FORMAT_UNSPECIFIED: "round_robin"}
TOURNAMENT_STATUS = {
    "running": pb.TOURNAMENT_STATUS_RUNNING, "finished": pb.TOURNAMENT_STATUS_FINISHED,
    "failed": pb.TOURNAMENT_STATUS_FAILED, "cancelled": pb.TOURNAMENT_STATUS_CANCELLED,
}
TOURNAMENT_STATUS_NAMES = {v: k for k, v in TOURNAMENT_STATUS.items()}
ABSENT_RULES = {"fail": pb.ABSENT_AGENT_RULE_FAIL, "failure_policy": pb.ABSENT_AGENT_RULE_FAILURE_POLICY}
ABSENT_RULE_NAMES = {v: k for k, v in ABSENT_RULES.items()}


class ArenaService(arena_service_pb2_grpc.ArenaServiceServicer):
    def __init__(self, store: Store, lobby: "Lobby", coordinator: "Coordinator"):
        self.store = store
        self.lobby = lobby
        self.coordinator = coordinator
        self.tournament_tasks: dict[str, asyncio.Task] = {}
        self.tournament_runners: dict[str, TournamentRunner] = {}
        # Several processes: tells the process running a tournament to cancel it (cluster/hub.py).
        self.cancel_elsewhere: Callable[[str, str], None] | None = None

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
        connected = self.lobby.connected_agents()      # one reading for the whole list
        return pb.ListAgentsResponse(agents=[self._agent(row, connected) for row in self.store.list_agents()])

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

    def _agent(self, row, connected: set[str] | None = None) -> pb.Agent:
        connected = self.lobby.connected_agents() if connected is None else connected
        return pb.Agent(name=row["name"], description=row["description"], house_agent=bool(row["house"]),
                        created_at=convert.timestamp(row["created_at"]), connected=row["name"] in connected)

    # ---- tournaments ------------------------------------------------------------------------------------
    async def CreateTournament(self, request, context):
        await auth.require(self.store, context, "admin")
        t = request.tournament
        policy = t.failure_policy
        rules = Rules(
            per_decision=t.time_control.per_decision.ToNanoseconds() / 1e9 or self.coordinator.default_rules.per_decision,
            max_retries=policy.max_retries,
            on_failure=convert.FAILURE_ACTION_NAMES.get(policy.on_failure, "random_legal"),
            max_replays=policy.max_replays, auto_play_forced=t.auto_play_forced,
            on_illegal="forfeit" if policy.illegal_move_forfeits else "retry",
        )
        if t.format not in FORMAT_NAMES:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unknown tournament format {t.format}")
        if FORMAT_NAMES[t.format] == "listed":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "listed tournaments are made by suites only")
        config = TournamentConfig(
            name=t.name or "tournament", game_id=t.game_id, agents=list(t.agents),
            parameters=convert.from_struct(t.parameters), preset=request.preset or None,
            games_per_pairing=t.games_per_pairing or 1, players_per_match=t.players_per_match, rules=rules,
            seed=t.seed, format=FORMAT_NAMES[t.format], on_absent=ABSENT_RULE_NAMES.get(t.on_absent, "fail"),
            absent_timeout=t.absent_timeout.ToNanoseconds() / 1e9 or DEFAULT_ABSENT_TIMEOUT,
        )
        try:
            config.validate()
        except (KeyError, ValueError, TypeError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e.args[0]))
        await self._check_agents(config.agents, context)
        tournament_id = self.start_tournament(config)
        return pb.CreateTournamentResponse(tournament=self._tournament(tournament_id))

    async def _check_agents(self, names: list[str], context) -> None:
        unknown = [a for a in names if self.store.get_agent(a) is None]
        if unknown:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown agents: {', '.join(unknown)}")

    # ---- suites ---------------------------------------------------------------------------------------
    async def ListSuites(self, request, context):
        await auth.require(self.store, context, "spectate")
        suites = []
        for name in sorted(SUITES):
            suite = SUITES[name]
            message = pb.Suite(
                name=suite.name, description=suite.description, matches_per_pairing=suite.matches_per_pairing,
                failure_policy=_failure_policy(suite.rules), missing_games=suite.missing_games(),
                games=[pb.SuiteGame(game_id=g.game_id, preset=g.preset or "", opponents=g.opponents,
                                    scoring=g.scoring, format=g.format or suite.format) for g in suite.games],
            )
            message.time_control.per_decision.FromNanoseconds(int(suite.rules.per_decision * 1e9))
            suites.append(message)
        return pb.ListSuitesResponse(suites=suites)

    async def RunSuite(self, request, context):
        await auth.require(self.store, context, "admin")
        suite = SUITES.get(request.suite)
        if suite is None:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"no suite {request.suite!r} (known: {', '.join(sorted(SUITES))})")
        try:
            if request.HasField("max_retries") and request.max_retries < 0:
                raise ValueError("max_retries must be 0 or more")
            configs = suite.tournaments(request.agent_name, matches_per_pairing=request.matches_per_pairing or None,
                                        seed=request.seed, opponents=tuple(request.opponents),
                                        max_retries=request.max_retries if request.HasField("max_retries") else None)
        except (KeyError, ValueError) as e:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION
                                if suite.missing_games() else grpc.StatusCode.INVALID_ARGUMENT, str(e.args[0]))
        await self._check_agents(sorted({a for c in configs for a in c.agents}), context)
        for config in configs:
            config.absent_timeout = request.absent_timeout.ToNanoseconds() / 1e9 or DEFAULT_ABSENT_TIMEOUT
            config.on_absent = ABSENT_RULE_NAMES.get(request.on_absent, "fail")
        return pb.RunSuiteResponse(tournaments=[self._tournament(self.start_tournament(c)) for c in configs])

    def start_tournament(self, config: TournamentConfig) -> str:
        tournament_id = "t_" + secrets.token_hex(6)
        self.store.add_tournament(tournament_id, config.to_dict(), "running", runner=self.coordinator.server_id)
        self._run_tournament(tournament_id, config)
        return tournament_id

    def resume_tournaments(self, tournament_ids: list[str] | None = None) -> int:
        """Restarts the runners of tournaments a previous process left running (or of those given,
        taken over from a dead process); each carries on from the matches the store holds. Returns
        how many."""
        rows = self.store.list_tournaments(status="running")
        if tournament_ids is not None:
            rows = [row for row in rows if row["tournament_id"] in tournament_ids]
        for row in rows:
            if row["tournament_id"] not in self.tournament_tasks or self.tournament_tasks[row["tournament_id"]].done():
                self._run_tournament(row["tournament_id"], TournamentConfig.from_dict(json.loads(row["config"])))
        return len(rows)

    def _run_tournament(self, tournament_id: str, config: TournamentConfig) -> None:
        runner = TournamentRunner(tournament_id, config, self.store, self.lobby, self.coordinator)
        self.tournament_runners[tournament_id] = runner
        task = asyncio.create_task(runner.run(), name=f"tournament-{tournament_id}")
        self.tournament_tasks[tournament_id] = task
        task.add_done_callback(lambda _: self.tournament_runners.pop(tournament_id, None))

    async def GetTournament(self, request, context):
        await auth.require(self.store, context, "spectate")
        if self.store.get_tournament(request.tournament_id) is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {request.tournament_id!r}")
        return pb.GetTournamentResponse(tournament=self._tournament(request.tournament_id))

    async def ListTournaments(self, request, context):
        await auth.require(self.store, context, "spectate")
        rows = self.store.list_tournaments(status=TOURNAMENT_STATUS_NAMES.get(request.status))
        return pb.ListTournamentsResponse(tournaments=[self._tournament(row["tournament_id"], row)
                                                       for row in reversed(rows)])

    async def CancelTournament(self, request, context):
        await auth.require(self.store, context, "admin")
        row = self.store.get_tournament(request.tournament_id)
        if row is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {request.tournament_id!r}")
        if row["status"] != "running":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                f"tournament {request.tournament_id} is {row['status']}, not running")
        await self.cancel_tournament(request.tournament_id, row["runner"])
        return pb.CancelTournamentResponse(tournament=self._tournament(request.tournament_id))

    async def cancel_tournament(self, tournament_id: str, runner_process: str = "") -> None:
        """Cancels a running tournament for good: its runner stops and its running matches are aborted,
        on whichever process runs it (the status is stored at once)."""
        runner = self.tournament_runners.get(tournament_id)
        task = self.tournament_tasks.get(tournament_id)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if runner is not None:
            await runner.stop("cancelled", "cancelled by an operator")
            return
        self.store.set_tournament_status(tournament_id, "cancelled", "cancelled by an operator")
        if runner_process and runner_process != self.coordinator.server_id and self.cancel_elsewhere is not None:
            self.cancel_elsewhere(tournament_id, runner_process)

    def _tournament(self, tournament_id: str, row=None) -> pb.Tournament:
        row = row or self.store.get_tournament(tournament_id)
        config = TournamentConfig.from_dict(json.loads(row["config"]))
        counts = self.store.tournament_counts(tournament_id)
        total = len(config.seatings())
        t = pb.Tournament(
            tournament_id=tournament_id, name=config.name, game_id=config.game_id,
            parameters=convert.to_struct(config.parameters), agents=config.agents,
            format=FORMATS[config.format], games_per_pairing=config.games_per_pairing,
            players_per_match=config.players_per_match, status=TOURNAMENT_STATUS[row["status"]],
            matches_total=total, matches_finished=counts.get("finished", 0), matches_void=counts.get("void", 0),
            error=row["error"], created_at=convert.timestamp(row["created_at"]), seed=config.seed,
            failure_policy=_failure_policy(config.rules), suite=config.suite,
            auto_play_forced=config.rules.auto_play_forced, on_absent=ABSENT_RULES[config.on_absent],
        )
        t.time_control.per_decision.FromNanoseconds(int(config.rules.per_decision * 1e9))
        t.absent_timeout.FromNanoseconds(int(config.absent_timeout * 1e9))
        if row["status"] == "running":     # as its runner stored them, whichever process runs it
            now = time.time()
            for wait in json.loads(row["waiting"]):
                described = Waiting(wait["agent_name"], wait["connected"], wait["games"], wait["since"])
                absent = t.waiting.add(agent_name=wait["agent_name"], connected=wait["connected"],
                                       connected_games=wait["games"], since=convert.timestamp(wait["since"]),
                                       reason=described.describe(config.game_id))
                absent.remaining.FromNanoseconds(int(max(0.0, config.absent_timeout - (now - wait["since"])) * 1e9))
        return t

    # ---- matches --------------------------------------------------------------------------------------------
    async def ListMatches(self, request, context):
        await auth.require(self.store, context, "spectate")
        limit = min(request.page_size or 100, 1000)
        before = None
        if request.page_token:
            created, _, match_id = request.page_token.partition(" ")
            try:
                before = (float(created), match_id)
            except ValueError:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "invalid page_token")
        matches = self.store.list_matches(
            tournament_id=request.tournament_id, game_id=request.game_id, agent_name=request.agent_name,
            status=convert.MATCH_STATUS_NAMES.get(request.status, ""), limit=limit + 1, before=before,
        )
        last = matches[limit - 1] if len(matches) > limit else None
        next_token = f"{last.created_at!r} {last.match_id}" if last else ""
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
        if (request.bradley_terry.resamples > MAX_RESAMPLES or request.elo.resamples > MAX_RESAMPLES
                or request.trueskill.orders > MAX_ORDERS):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"at most {MAX_RESAMPLES} resamples and {MAX_ORDERS} random orders")
        try:
            query = leaderboard_query(request).resolved()
        except (KeyError, ValueError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e.args[0]))
        # The exact GameBench replication runs the authors' whole call chain (every game, then all
        # matches), so it reads every game of the selection; other methods read the game alone.
        by_game = request.game_id if query.preset != "gamebench_code" else ""
        matches = list(self.store.finished_matches(game_id=by_game, tournament_id=request.tournament_id))
        # Imported logs (federation, published data sets) may hold games this server cannot run.
        if (request.game_id and request.game_id not in arena_engines.game_ids()
                and not any(m.game_id == request.game_id for m in matches)):
            await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown game {request.game_id!r}")
        try:
            # Fits and bootstraps take CPU time: keep them off the event loop.
            board = await asyncio.to_thread(compute_leaderboard, matches, query)
        except LookupError as e:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(e.args[0]))
        except ValueError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e.args[0]))
        return leaderboard_response(board)


#: Limits on the work one leaderboard request may ask for.
MAX_RESAMPLES, MAX_ORDERS = 100_000, 1_000

RATING_METHODS = {
    "trueskill": pb.RATING_METHOD_TRUESKILL, "bradley_terry": pb.RATING_METHOD_BRADLEY_TERRY,
    "elo": pb.RATING_METHOD_ELO, "nra": pb.RATING_METHOD_NRA, "suite_score": pb.RATING_METHOD_SUITE_SCORE,
}
METHOD_NAMES = {v: k for k, v in RATING_METHODS.items()}


def leaderboard_response(board: Leaderboard) -> pb.GetLeaderboardResponse:
    return pb.GetLeaderboardResponse(
        method=RATING_METHODS[board.method], matches_counted=board.matches_counted,
        description=board.description, games=board.games, confidence_level=board.level,
        resamples=board.resamples, preset=board.preset, has_interval=board.has_interval,
        provisional_matches=board.provisional_matches,
        entries=[pb.LeaderboardEntry(rank=r.rank, agent_name=r.agent_name, rating=r.rating, lower=r.lower,
                                     upper=r.upper, matches=r.matches, wins=r.wins, draws=r.draws,
                                     losses=r.losses, details=r.extra, provisional=r.provisional)
                 for r in board.rows],
    )


def leaderboard_query(request: pb.GetLeaderboardRequest) -> LeaderboardQuery:
    """The ratings query a GetLeaderboardRequest asks for (proto defaults → the methods' defaults)."""
    bt, ts, elo, nra = request.bradley_terry, request.trueskill, request.elo, request.nra
    prior = bt.prior if bt.HasField("prior") else 1.0
    return LeaderboardQuery(
        method=METHOD_NAMES.get(request.method, ""), game_id=request.game_id, suite=request.suite,
        agents=list(request.agents) or None,
        weighting={pb.MATCH_WEIGHTING_PER_MATCH: "match"}.get(request.weighting, "game"),
        ties={pb.TIE_POLICY_DROP: "drop", pb.TIE_POLICY_HALF: "half"}.get(request.ties),
        scoring={pb.OUTCOME_SCORING_RETURN_SHARE: "share"}.get(request.scoring, "rank"),
        preset=request.preset,
        bt=BTOptions(
            resamples=bt.resamples or 1000, level=bt.confidence_level or 0.90, seed=bt.seed,
            anchor=bt.anchor_agent or None, anchor_rating=bt.anchor_rating, scale=bt.scale or 1.0,
            alpha=bt.regularization if bt.HasField("regularization") else (0.0 if prior else 0.001),
            point="mean" if bt.point == pb.BRADLEY_TERRY_POINT_BOOTSTRAP_MEAN else "mle", prior=prior,
        ),
        trueskill_orders=ts.orders, trueskill_seed=ts.seed,
        elo=EloOptions(k_factor=elo.k_factor or 32.0,
                       initial=elo.initial_rating if elo.HasField("initial_rating") else 1500.0,
                       resamples=elo.resamples if elo.HasField("resamples") else 1000,
                       level=elo.confidence_level or 0.95, seed=elo.seed),
        nra_opponent=nra.opponent,
        nra_variant="abs_sum" if nra.variant == pb.NRA_VARIANT_ABSOLUTE_OF_SUM else "sum_abs",
    )


def _failure_policy(rules: Rules) -> match_pb2.FailurePolicy:
    return match_pb2.FailurePolicy(max_retries=rules.max_retries, on_failure=convert.FAILURE_ACTIONS[rules.on_failure],
                                   max_replays=rules.max_replays, illegal_move_forfeits=rules.on_illegal == "forfeit")
