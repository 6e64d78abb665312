"""The Hive house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built from
a real engine state), without a server: it surrounds the enemy Queen when it can, will not surround
its own, opens with its Queen, always answers a legal action, and beats random play."""

from __future__ import annotations

import random
from functools import partial

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from . import test_house
from .house_harness import play_against_random

GAME = "hive"
NAME = "hive_greedy"
QUEENS = ["place_(0,0)_Queen", "place_(1,0)_Queen"]
# From tests/engines/test_hive.py: Green's Queen on (1,0) is closed in on five sides and Blue's Ant on
# (-1,1) can slide into the sixth, (0,1).
BLUE_CAN_WIN = QUEENS + ["place_(-1,0)_Ant", "place_(2,0)_Spider", "place_(-1,1)_Ant", "place_(2,-1)_Spider",
                         "move_(-1,0)_(1,-1)", "place_(1,1)_Hopper"]


decide = partial(test_house.decide, NAME, GAME)


def after(moves, preset: str = "gamebench"):
    game = load_game(GAME, preset=preset)
    state = game.new_initial_state()
    for move in moves:
        state.apply_action(state.parse_action(state.current_player(), move))
    return game, state


def test_registered_for_hive_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "Hive" in description
    assert factory(0).games == frozenset({GAME})


def test_opens_with_its_queen():
    game, state = after([])
    assert state.action_to_string(0, decide(game, state, 0)) == "place_(0,0)_Queen"


def test_surrounds_the_enemy_queen_when_it_can():
    game, state = after(BLUE_CAN_WIN)
    choice = decide(game, state, 0)
    assert state.action_to_string(0, choice) == "move_(-1,1)_(0,1)"
    state.apply_action(choice)
    assert state.returns() == [1.0, 0.0]


def test_does_not_surround_both_queens_when_it_need_not():
    # Green to move with both Queens five-sided around (0,1): Green's Ant on (3,0) could fill it and
    # surround both Queens at once; the agent plays something else.
    game, state = after(QUEENS + ["place_(-1,0)_Spider", "place_(2,0)_Spider", "place_(-1,1)_Spider",
                                  "place_(2,-1)_Spider", "place_(0,-1)_Hopper", "place_(1,1)_Hopper",
                                  "place_(-2,0)_Ant", "place_(3,0)_Ant", "move_(-2,0)_(1,-1)"])
    assert "move_(3,0)_(0,1)" in [state.action_to_string(1, a) for a in state.legal_actions()]
    choice = decide(game, state, 1)
    assert state.action_to_string(1, choice) != "move_(3,0)_(0,1)"
    state.apply_action(choice)
    assert not state.is_terminal()


@pytest.mark.parametrize("seat", [0, 1])
def test_always_legal_reproducible_and_ahead_of_random_play(seat):
    game = load_game(GAME, preset="gamebench")

    def reproducible(state, action, seed):
        if len(state.history()) in (2, 3):      # its second turn: ties broken by the seed alone
            assert decide(game, state, seat, seed) == decide(game, state, seat, seed)

    wins = 0
    for seed in range(6):
        state = play_against_random(NAME, game, {seat: seed}, random.Random(seed), reproducible)
        wins += state.returns()[seat] == 1.0
    assert wins >= 5, wins
