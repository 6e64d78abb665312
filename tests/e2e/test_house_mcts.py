"""MCTS over real gRPC: the house "mcts" agent against a remote `arena-agent random`, and the remote
`arena-agent mcts` against the house random agent, in perfect- and imperfect-information games, and
the house agent in each of GameBench's board and card games."""

from __future__ import annotations

import pytest

from arena.v1 import arena_service_pb2 as apb
from arena.v1 import match_pb2

from ..conftest import agent_process
from .helpers import agents_running, matches_of, run_tournament


@pytest.fixture
def remote_agents(server):
    with agents_running(server, {
        "alice": agent_process(server, "alice", "random", "--game", "connect_four", "--game", "kuhn_poker",
                               "--no-ladder", "--seed", "3"),
        "bob": agent_process(server, "bob", "mcts", "--game", "tic_tac_toe", "--game", "liars_dice", "--no-ladder",
                             "--simulations", "1000", "--seed", "4"),
    }) as procs:
        yield procs


def outcomes(server, tournament, agent: str) -> tuple[list[str], list]:
    """'win' / 'draw' / 'loss' of `agent` in each match of the tournament, and the matches."""
    assert tournament.status == apb.TOURNAMENT_STATUS_FINISHED, tournament.error
    matches = matches_of(server, tournament.tournament_id)
    results = []
    for m in matches:
        assert m.status == match_pb2.MATCH_STATUS_FINISHED and m.result.reason == match_pb2.END_REASON_NORMAL
        # Every decision was the agents' own: nothing illegal, late or substituted.
        for stats in m.result.seat_stats:
            assert (stats.illegal_actions, stats.parse_failures, stats.timeouts, stats.substituted_actions) == (0, 0, 0, 0)
        seat = next(p.seat for p in m.players if p.agent_name == agent)
        mine, theirs = m.result.returns[seat], m.result.returns[1 - seat]
        results.append("win" if mine > theirs else "draw" if mine == theirs else "loss")
    return results, matches


def test_house_mcts_beats_a_remote_random_agent(server, remote_agents):
    t = run_tournament(server, "connect_four", ["alice", "mcts"], games_per_pairing=5)
    results, matches = outcomes(server, t, "mcts")
    assert len(matches) == 10
    assert results.count("win") >= 9, results
    # The house agent searched from the observation it was sent, in an imperfect-information game too.
    t = run_tournament(server, "kuhn_poker", ["alice", "mcts"], games_per_pairing=5, seed=11)
    results, matches = outcomes(server, t, "mcts")
    assert len(matches) == 10


def test_remote_mcts_agent_beats_the_house_random_agent(server, remote_agents):
    t = run_tournament(server, "tic_tac_toe", ["bob", "random"], games_per_pairing=5)
    results, _ = outcomes(server, t, "bob")
    assert "loss" not in results and results.count("win") >= 7, results
    t = run_tournament(server, "liars_dice", ["bob", "random"], games_per_pairing=5, seed=12)
    results, _ = outcomes(server, t, "bob")
    assert results.count("win") >= 7, results


# GameBench's board and card games, shortened where a whole game at 1,000 simulations a move would take
# minutes (Hive and Sea Battle run to their turn caps under random play).
GAMEBENCH_BOARD_GAMES = {"santorini": {}, "air_land_sea": {}, "arctic_scavengers": {}, "hive": {"max_turns": 8},
                         "sea_battle": {"max_turns": 3}}


def test_house_mcts_plays_each_gamebench_board_game_against_a_remote_agent(server):
    games = [arg for game in GAMEBENCH_BOARD_GAMES for arg in ("--game", game)]
    with agents_running(server, {"carol": agent_process(server, "carol", "random", *games, "--no-ladder",
                                                        "--seed", "5")}):
        for game, parameters in GAMEBENCH_BOARD_GAMES.items():
            t = run_tournament(server, game, ["carol", "mcts"], preset="gamebench", parameters=parameters,
                               per_decision=30)
            _, matches = outcomes(server, t, "mcts")       # every decision the agents' own, none late
            assert len(matches) == 2, game       # one match on each side (in Sea Battle, one agent per side)
