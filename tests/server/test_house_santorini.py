"""The Santorini house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built
from a real engine state), without a server: it places in the centre, takes a win, blocks the
opponent's climb, always answers a legal action, and beats random play."""

from __future__ import annotations

import random
from functools import partial

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from . import test_house
from .house_harness import play_against_random

GAME = "santorini"
NAME = "santorini_greedy"
# From tests/engines/test_santorini.py: A climbs to level 2 on (3, 1) next to (2, 2) at level 3.
CLIMB = ["(2, 2)", "(0, 0)", "(3, 3)", "(0, 4)",
         "Move west, build east", "Move east, build west", "Move west, build west", "Move west, build east",
         "Move east, build west", "Move west, build east", "Move south, build northwest", "Move east, build west",
         "Move southwest, build northeast", "Move east, build west", "Move north, build north", "Move west, build east"]


decide = partial(test_house.decide, NAME, GAME)


def after(moves, forced: bool = True):
    game = load_game(GAME, {"forced_alternation": forced}, preset="gamebench")
    state = game.new_initial_state()
    for move in moves:
        state.apply_action(state.parse_action(state.current_player(), move))
    return game, state


def test_registered_for_santorini_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "Santorini" in description
    assert factory(0).games == frozenset({GAME})


def test_places_its_first_pawn_in_the_centre():
    game, state = after([])
    assert state.action_to_string(0, decide(game, state, 0)) == "(2, 2)"


def test_climbs_onto_level_3_when_it_can():
    game, state = after(CLIMB)
    choice = decide(game, state, 0)
    assert state.action_to_string(0, choice).startswith("Move northeast,")
    state.apply_action(choice)
    assert state.returns() == [1.0, 0.0]


def test_domes_the_square_the_opponent_would_climb_next():
    # Y to play; A, next, stands on level 2 beside (2, 2) at level 3. Only Y on (1, 3) can dome it.
    game, state = after(CLIMB[:-1])
    choice = decide(game, state, 1)
    assert state.action_to_string(1, choice) == "Move southwest, build southwest"
    state.apply_action(choice)
    assert state.observation_dict(0)["levels"][2][2] == 4


def test_boxes_in_the_opponent_pawn_to_play():
    # X in the corner (0, 0) with Y and B beside it: A stepping onto (0, 1) wins at once.
    game, state = after(["(0, 2)", "(0, 0)", "(1, 1)", "(1, 0)"])
    choice = decide(game, state, 0)
    assert state.action_to_string(0, choice).startswith("Move west,")
    state.apply_action(choice)
    assert state.returns() == [1.0, 0.0]


@pytest.mark.parametrize("forced", [True, False])
@pytest.mark.parametrize("seat", [0, 1])
def test_always_legal_reproducible_and_ahead_of_random_play(seat, forced):
    game = load_game(GAME, {"forced_alternation": forced}, preset="gamebench")

    def reproducible(state, action, seed):
        if len(state.history()) in (4, 5):    # its first turn: ties broken by the seed alone
            assert decide(game, state, seat, seed) == decide(game, state, seat, seed)

    wins = 0
    for seed in range(12):
        state = play_against_random(NAME, game, {seat: seed}, random.Random(seed), reproducible)
        wins += state.returns()[seat] == 1.0
    assert wins >= 11, wins
