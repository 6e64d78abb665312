"""`arena-server tournament`: tournaments on a running server, over its admin RPCs."""

from __future__ import annotations

import json
import sys
import time

from ..referee.match import FAILURE_POLICIES
from .common import add_client_args, stubs
from .leaderboard import print_board


def add_parsers(sub) -> None:
    tournament = sub.add_parser("tournament", help="tournaments on a running server")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    run = t_sub.add_parser("run", help="create a round-robin tournament, follow it, print its leaderboard")
    add_client_args(run)
    run.add_argument("--game", required=True)
    run.add_argument("--agents", required=True, help="comma-separated agent names (house agents: random, mcts, "
                     "tit_for_tat, always_defect, bid_half_value, bid_value)")
    run.add_argument("--preset", default="")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="game parameter override")
    run.add_argument("--games-per-pairing", type=int, default=1, help="matches per group in each seat rotation")
    run.add_argument("--players-per-match", type=int, default=0)
    run.add_argument("--per-decision", type=float, default=30.0)
    run.add_argument("--max-retries", type=int, default=2)
    run.add_argument("--on-failure", default="random_legal", choices=list(FAILURE_POLICIES))
    run.add_argument("--max-replays", type=int, default=3)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--name", default="")
    run.add_argument("--timeout", type=float, default=0, help="give up following after this many seconds (0: never)")
    run.set_defaults(run=_tournament_run)


def _tournament_run(args) -> int:
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from ..convert import FAILURE_ACTIONS, to_struct

    stub, md = stubs(args)
    parameters = {}
    for item in args.param:
        name, _, value = item.partition("=")
        try:
            parameters[name] = json.loads(value)
        except json.JSONDecodeError:
            parameters[name] = value
    t = pb.Tournament(
        name=args.name or f"{args.game} round robin", game_id=args.game,
        agents=[a.strip() for a in args.agents.split(",") if a.strip()], parameters=to_struct(parameters),
        format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN, games_per_pairing=args.games_per_pairing,
        players_per_match=args.players_per_match, seed=args.seed,
        failure_policy=match_pb2.FailurePolicy(max_retries=args.max_retries, on_failure=FAILURE_ACTIONS[args.on_failure],
                                               max_replays=args.max_replays),
    )
    t.time_control.per_decision.FromNanoseconds(int(args.per_decision * 1e9))
    created = stub.CreateTournament(pb.CreateTournamentRequest(tournament=t, preset=args.preset), metadata=md).tournament
    print(f"tournament {created.tournament_id}: {created.matches_total} matches of {created.game_id} "
          f"among {', '.join(created.agents)}", flush=True)
    started, last = time.monotonic(), None
    while True:
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=created.tournament_id), metadata=md).tournament
        progress = (t.matches_finished, t.matches_void)
        if progress != last:
            print(f"  {t.matches_finished}/{t.matches_total} finished, {t.matches_void} void", flush=True)
            last = progress
        if t.status != pb.TOURNAMENT_STATUS_RUNNING:
            break
        if args.timeout and time.monotonic() - started > args.timeout:
            print("error: timed out following the tournament (it keeps running on the server)", file=sys.stderr)
            return 1
        time.sleep(0.5)
    if t.status == pb.TOURNAMENT_STATUS_FAILED:
        print(f"error: tournament failed: {t.error}", file=sys.stderr)
        return 1
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(tournament_id=t.tournament_id), metadata=md)
    print_board(board)
    return 0
