"""`arena-server games`: the games a running server offers."""

from __future__ import annotations

from .common import add_client_args, stubs


def add_parsers(sub) -> None:
    games = sub.add_parser("games", help="list the games a running server offers")
    add_client_args(games)
    games.set_defaults(run=_games)


def _games(args) -> int:
    from arena.v1 import arena_service_pb2 as pb

    stub, md = stubs(args)
    for g in stub.ListGames(pb.ListGamesRequest(), metadata=md).games:
        presets = ", ".join(p.name for p in g.presets) or "-"
        print(f"{g.game_id:<28} {g.min_players}-{g.max_players} players  presets: {presets}")
    return 0
