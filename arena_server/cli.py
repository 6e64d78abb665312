"""`arena-server`: serve, issue keys, run tournaments, print leaderboards.

`serve` and `keys` work on the database file directly; `tournament` and `leaderboard` talk to a
running server over its admin RPCs, so they work against a remote server too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time

import grpc

DEFAULT_DB = "arena.db"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-server", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the server on an embedded SQLite file")
    serve.add_argument("--db", default=DEFAULT_DB, help="SQLite database file (created if missing)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=50051)
    serve.add_argument("--per-decision", type=float, default=30.0, help="seconds allowed per decision")
    serve.add_argument("--max-retries", type=int, default=2, help="re-asks after an illegal or unparseable decision")
    serve.add_argument("--on-failure", default="random_legal", choices=["random_legal", "forfeit", "void_and_replay"])
    serve.add_argument("--house-delay", type=float, default=1.0,
                       help="seconds a lone ladder agent waits before house agents fill its match")
    serve.add_argument("--log-json", action="store_true", help="JSON log lines instead of console lines")

    keys = sub.add_parser("keys", help="API keys")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="issue a key (printed once)")
    create.add_argument("--db", default=DEFAULT_DB)
    create.add_argument("--agent", help="agent the key plays as (registered if new); required for the play scope")
    create.add_argument("--scopes", default="play", help="comma-separated: play, spectate, admin")
    create.add_argument("--label", default="")

    tournament = sub.add_parser("tournament", help="tournaments on a running server")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    run = t_sub.add_parser("run", help="create a round-robin tournament, follow it, print its leaderboard")
    _add_client_args(run)
    run.add_argument("--game", required=True)
    run.add_argument("--agents", required=True, help="comma-separated agent names (house agents: random)")
    run.add_argument("--preset", default="")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="game parameter override")
    run.add_argument("--games-per-pairing", type=int, default=1, help="matches per group in each seat rotation")
    run.add_argument("--players-per-match", type=int, default=0)
    run.add_argument("--per-decision", type=float, default=30.0)
    run.add_argument("--max-retries", type=int, default=2)
    run.add_argument("--on-failure", default="random_legal", choices=["random_legal", "forfeit", "void_and_replay"])
    run.add_argument("--max-replays", type=int, default=3)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--name", default="")
    run.add_argument("--timeout", type=float, default=0, help="give up following after this many seconds (0: never)")

    board = sub.add_parser("leaderboard", help="print a leaderboard from a running server")
    _add_client_args(board)
    board.add_argument("--game", default="")
    board.add_argument("--tournament", default="")

    games = sub.add_parser("games", help="list the games a running server offers")
    _add_client_args(games)

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "keys":
        return _keys_create(args)
    try:
        if args.command == "tournament":
            return _tournament_run(args)
        if args.command == "leaderboard":
            return _leaderboard(args)
        return _games(args)
    except grpc.RpcError as e:
        print(f"error: {e.code().name}: {e.details()}", file=sys.stderr)
        return 1


def _add_client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051")
    p.add_argument("--key", default=os.environ.get("ARENA_API_KEY", ""),
                   help="API key (default: $ARENA_API_KEY, else the admin key file beside --db)")
    p.add_argument("--db", default=DEFAULT_DB, help="where to find the admin key file when --key is not given")


def _serve(args) -> int:
    from . import logs
    from .server import ArenaServer, ServerConfig

    logs.configure(json=args.log_json)
    config = ServerConfig(database=args.db, host=args.host, port=args.port, per_decision=args.per_decision,
                          max_retries=args.max_retries, on_failure=args.on_failure, house_delay=args.house_delay)

    async def run() -> None:
        server = ArenaServer(config)
        key_file = server.ensure_admin_key()
        port = await server.start()
        if key_file:
            print(f"admin key written to {key_file}", flush=True)
        print(f"arena-server listening on {config.host}:{port} (database {config.database})", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    asyncio.run(run())
    return 0


def _keys_create(args) -> int:
    from . import auth
    from .store import Store

    store = Store(args.db)
    try:
        key, key_id = auth.create_key(store, agent_name=args.agent, scopes=[s.strip() for s in args.scopes.split(",")],
                                      label=args.label)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(key)
    print(f"key id {key_id}; scopes {args.scopes}" + (f"; agent {args.agent}" if args.agent else ""), file=sys.stderr)
    return 0


def _stubs(args):
    from arena.v1 import arena_service_pb2_grpc

    from .server import admin_key_path

    key = args.key
    if not key:
        path = admin_key_path(args.db)
        if not path.exists():
            raise SystemExit(f"error: no API key: pass --key, set ARENA_API_KEY, or run from beside {path}")
        key = path.read_text().strip()
    channel = grpc.insecure_channel(args.server)
    return arena_service_pb2_grpc.ArenaServiceStub(channel), [("authorization", f"Bearer {key}")]


def _tournament_run(args) -> int:
    from arena.v1 import arena_service_pb2 as pb
    from arena.v1 import match_pb2

    from .convert import FAILURE_ACTIONS, to_struct

    stub, md = _stubs(args)
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
    _print_board(board)
    return 0


def _leaderboard(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = _stubs(args)
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(game_id=args.game, tournament_id=args.tournament), metadata=md)
    _print_board(board)
    return 0


def _print_board(board) -> None:
    print(f"TrueSkill leaderboard ({board.matches_counted} matches; interval mu ± 3 sigma)")
    print(f"{'rank':>4}  {'agent':<24} {'rating':>7} {'lower':>7} {'upper':>7} {'matches':>7} {'W-D-L':>11}")
    for e in board.entries:
        wdl = f"{e.wins}-{e.draws}-{e.losses}"
        print(f"{e.rank:>4}  {e.agent_name:<24} {e.rating:7.2f} {e.lower:7.2f} {e.upper:7.2f} {e.matches:7d} {wdl:>11}")


def _games(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = _stubs(args)
    for g in stub.ListGames(pb.ListGamesRequest(), metadata=md).games:
        presets = ", ".join(p.name for p in g.presets) or "-"
        print(f"{g.game_id:<28} {g.min_players}-{g.max_players} players  presets: {presets}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
