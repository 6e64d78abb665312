"""Two remote Python agents (separate `arena-agent` processes) and a house agent play at least 50
matches of each game over real gRPC; every stored match replays from its log to its result."""

from __future__ import annotations

import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2
from arena_server.referee import replay_match

from ..conftest import agent_process
from .helpers import agents_running, matches_of, run_tournament

GAMES = ["tic_tac_toe", "connect_four", "guess_two_thirds_average"]


@pytest.fixture
def two_remote_agents(server):
    with agents_running(server, {
        name: agent_process(server, name, "random", *sum((["--game", g] for g in GAMES), []), "--no-ladder",
                            "--concurrency", "4", "--seed", str(i))
        for i, name in enumerate(["alice", "bob"])
    }) as procs:
        yield procs


@pytest.mark.parametrize("game,games_per_pairing,players,parameters", [
    ("tic_tac_toe", 9, 2, {}),                        # 3 pairs x 2 seat orders x 9 = 54 matches
    ("connect_four", 9, 2, {}),                       # 54 matches
    ("guess_two_thirds_average", 17, 3, {"rounds": 5}),   # one trio x 3 rotations x 17 = 51 matches
])
def test_fifty_matches_per_game_are_recorded_rated_and_replayable(server, two_remote_agents, game,
                                                                   games_per_pairing, players, parameters):
    t = run_tournament(server, game, ["alice", "bob", "random"], games_per_pairing=games_per_pairing,
                       players_per_match=players, parameters=parameters)
    assert t.status == apb.TOURNAMENT_STATUS_FINISHED, t.error
    matches = matches_of(server, t.tournament_id)
    assert len(matches) == t.matches_total >= 50
    assert all(m.status == match_pb2.MATCH_STATUS_FINISHED for m in matches)
    assert all(m.result.reason == match_pb2.END_REASON_NORMAL for m in matches)
    # Every agent holds every seat equally often (seat rotation).
    seats = {}
    for m in matches:
        for p in m.players:
            seats.setdefault(p.agent_name, []).append(p.seat)
    for name, held in seats.items():
        assert sorted(set(held)) == list(range(players)), name
        assert len({held.count(s) for s in range(players)}) == 1, name

    store = server.store()
    try:
        for m in matches:
            assert replay_match(store, m.match_id) == list(m.result.returns)
    finally:
        store.close()

    board = server.arena_stub().GetLeaderboard(apb.GetLeaderboardRequest(tournament_id=t.tournament_id),
                                               metadata=server.metadata())
    assert board.matches_counted == len(matches)
    assert {e.agent_name for e in board.entries} == {"alice", "bob", "random"}
    for e in board.entries:
        assert e.lower < e.rating < e.upper
        assert e.wins + e.draws + e.losses == e.matches > 0
