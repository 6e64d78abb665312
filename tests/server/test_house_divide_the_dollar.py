"""Divide the Dollar's house agents, driven as the referee drives them (see test_house.py)."""

from __future__ import annotations

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .test_house import decide

GAME = "divide_the_dollar"


def bids_of(name: str, parameters: dict, others: list[int], rounds: int = 3) -> list[int]:
    """The house agent's bids (seat 0) over `rounds` rounds against fixed bids of the other seats."""
    game = load_game(GAME, {**parameters, "rounds": rounds, "players": len(others) + 1})
    state = game.new_initial_state()
    mine = []
    for _ in range(rounds):
        mine.append(decide(name, GAME, game, state, 0))
        state.apply_actions([mine[-1], *others])
    return mine


def test_both_agents_are_registered_for_this_game_only():
    for name in ("dollar_dominant_bidder", "dollar_fair_share"):
        description, factory = HOUSE_AGENTS[name]
        assert "divide the dollar" in description
        assert factory(0).games == frozenset({GAME})


def test_the_dominant_bidder_always_bids_91():
    assert bids_of("dollar_dominant_bidder", {"golds": 100}, [1] * 9) == [91, 91, 91]
    assert bids_of("dollar_dominant_bidder", {"golds": 800}, [50] * 9) == [91, 91, 91]


def test_the_dominant_bidder_keeps_to_a_strict_range():
    assert bids_of("dollar_dominant_bidder", {"golds": 50, "strict_ranges": True}, [0, 0]) == [50, 50, 50]


@pytest.mark.parametrize("golds,players,share", [(100, 10, 10), (50, 10, 5), (7, 3, 2), (800, 10, 80)])
def test_the_fair_share_bids_g_over_n_rounded_down(golds, players, share):
    assert bids_of("dollar_fair_share", {"golds": golds}, [0] * (players - 1), rounds=2) == [share, share]


def test_a_table_of_fair_sharers_divides_the_golds_exactly():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_actions([decide("dollar_fair_share", GAME, game, state, seat) for seat in range(10)])
    assert state.returns() == [200.0] * 10
    assert state.result_details()["gamabench"]["score"] == 100.0


def test_a_dominant_bidder_among_fair_sharers_sinks_every_round():
    game = load_game(GAME, {"rounds": 2}, preset="gamabench")
    state = game.new_initial_state()
    while not state.is_terminal():
        bids = [decide("dollar_fair_share", GAME, game, state, seat) for seat in range(10)]
        bids[3] = decide("dollar_dominant_bidder", GAME, game, state, 3)
        state.apply_actions(bids)
    assert [r["total"] for r in state.result_details()["rounds"]] == [181, 181]
    assert state.returns() == [0.0] * 10


def test_other_games_are_refused():
    game = load_game("tic_tac_toe")
    assert decide("dollar_fair_share", "tic_tac_toe", game, game.new_initial_state(), 0) is None
