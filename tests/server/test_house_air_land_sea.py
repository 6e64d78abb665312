"""The Air, Land, and Sea house agent, driven as the referee drives it (MatchStarted, then
DecisionRequests built from a real engine state), without a server: it takes the strongest play, flips
what hurts the opponent most, never withdraws, always answers a legal action and beats random play."""

from __future__ import annotations

import random

import pytest

from arena_engines import load_game
from arena_engines.air_land_sea import card_id
from arena_server.house import HOUSE_AGENTS

from .house_harness import play_against_random
from .test_house import decide

GAME = "air_land_sea"
GREEDY = "als_greedy"
ORDERS = ["Air Land Sea", "Air Sea Land", "Land Air Sea", "Land Sea Air", "Sea Air Land", "Sea Land Air"]


def dealt(hand0, hand1, first=0, order="Air Land Sea"):
    game = load_game(GAME, {"hand_size": len(hand0)})
    state = game.new_initial_state()
    state.apply_action(ORDERS.index(order))
    state.apply_action(first)
    for label in list(hand0) + list(hand1):
        state.apply_action(card_id(label))
    return game, state


def greedy(game, state, seed=0) -> int:
    return decide(GREEDY, GAME, game, state, state.current_player(), seed)


def test_registered_for_air_land_sea_only():
    description, factory = HOUSE_AGENTS[GREEDY]
    assert "Air, Land, and Sea" in description and factory(0).games == frozenset({GAME})
    game = load_game("connect_four")
    assert decide(GREEDY, "connect_four", game, game.new_initial_state(), 0) is None


def test_it_deploys_the_card_that_gains_the_most_strength():
    game, state = dealt(["Reinforce (Land 1)", "Support (Air 1)", "Heavy Tanks (Land 6)"],
                        ["Ambush (Land 2)", "Escalation (Sea 2)", "Maneuver (Sea 3)"])
    assert greedy(game, state) == 2                   # Heavy Tanks face up: +6, more than Support's +4


def test_its_maneuver_turns_the_opponents_strongest_card_face_down():
    game, state = dealt(["Maneuver (Air 3)", "Transport (Sea 1)", "Cover Fire (Land 4)"],
                        ["Heavy Tanks (Land 6)", "Super Battleship (Sea 6)", "Ambush (Land 2)"], first=1)
    state.apply_action(0)                             # seat 1: Heavy Tanks face up to Land
    state.apply_action(3 * 2 + 1)                     # seat 0: Transport face down to Land
    state.apply_action(0)                             # seat 1: Super Battleship face up to Sea
    state.apply_action(0)                             # seat 0: Maneuver face up to Air
    texts = {a: state.action_to_string(0, a) for a in state.legal_actions()}
    assert texts == {0: "Flip your face-down Transport (Sea 1) in Land face up.",
                     1: "Flip your opponent's Heavy Tanks (Land 6) in Land face down."}
    assert greedy(game, state) == 1


@pytest.mark.parametrize("seat", [0, 1])
def test_always_legal_reproducible_never_withdraws_and_ahead_of_random_play(seat):
    game = load_game(GAME, {"target_vp": 6}, preset="gamebench")

    def never_withdraws(state, action, seed):
        assert not state.action_to_string(seat, action).startswith("Withdraw")

    total = 0.0
    for seed in range(8):
        state = play_against_random(GREEDY, game, {seat: seed}, random.Random(seed), never_withdraws)
        total += state.returns()[seat]
    assert total / 8 > 0.7, total
    _, state = dealt(["Heavy Bombers (Air 6)", "Support (Air 1)"], ["Ambush (Land 2)", "Escalation (Sea 2)"])
    assert greedy(game, state, seed=3) == greedy(game, state, seed=3)
