"""The Arctic Scavengers house agent, driven as the referee drives it (MatchStarted, then DecisionRequests
built from a real engine state), without a server: it hunts to hire, hires the best mercenary it can pay
for, keeps the best dug card, targets the opponent's best card, stops at once in the last round, always
answers a legal action and beats random play."""

from __future__ import annotations

import random
from collections import Counter

from arena_engines import load_game
from arena_engines.arctic_scavengers import CARD_NAMES, JUNKYARD
from arena_server.house import HOUSE_AGENTS

from . import test_house
from .house_harness import play_against_random

GAME = "arctic_scavengers"
NAME = "arctic_greedy"


def decide(game, state, seed: int = 0) -> str:
    """The house agent's answer for the seat to move, as the action's text."""
    seat = state.current_player()
    action = test_house.decide(NAME, GAME, game, state, seat, seed)
    assert action in state.legal_actions(seat)
    return state.action_to_string(seat, action)


def dealt(hand0, hand1, **parameters):
    game = load_game(GAME, parameters, preset="gamebench")
    state = game.new_initial_state()
    for name in list(hand0) + list(hand1):
        state.apply_action(CARD_NAMES.index(name))
    return game, state


def say(state, text: str) -> None:
    state.apply_action(state.parse_action(state.current_player(), text))


OPENING = (["Refugee", "Scavenger", "Scavenger", "Brawler", "Shovel"],
           ["Refugee", "Refugee", "Scavenger", "Spear", "Shovel"])


def test_registered_for_arctic_scavengers_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "Arctic Scavengers" in description
    assert factory(0).games == frozenset({GAME})


def test_hunts_for_the_best_mercenary_it_can_then_pay_for_and_hires_it():
    game, state = dealt(*OPENING)
    # 2 FOOD from the two Scavengers pays for a Brawler, the best mercenary without medicine.
    assert decide(game, state) == '["HUNT", ["Scavenger", "Scavenger"]]'
    say(state, '["HUNT", ["Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    assert decide(game, state) == '["HIRE", [], "Brawler"]'
    say(state, '["HIRE", [], "Brawler"]')
    say(state, '["STOP", ""]')
    assert decide(game, state) == '["STOP", []]'


def test_hires_with_the_fewest_medicine_cards():
    game, state = dealt(["Scavenger", "Scavenger", "Scavenger", "Refugee", "Refugee"], OPENING[1])
    view = state.observation_dict(0)
    view["hand"] += ["Medkit", "Pills"]            # as if dug in an earlier round
    view["unlocated"] = {}
    view["junkyard"]["shuffled_known"] = dict(Counter(JUNKYARD) - Counter(["Medkit", "Pills"]))
    view["opponent_knows"]["cards_unseen"] = 2
    state = game.state_from_view(0, view)
    say(state, '["HUNT", ["Scavenger", "Scavenger", "Scavenger"]]')
    say(state, '["STOP", ""]')
    # 3 FOOD, MEDICINE 3: Group Leaders (2 FOOD, 2 MEDICINE) is the most valuable it can pay for.
    assert decide(game, state) == '["HIRE", ["Medkit"], "Group Leaders"]'


def test_keeps_the_most_valuable_dug_card():
    game, state = dealt(*OPENING)
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    say(state, '["STOP", ""]')
    for name in ("Junk", "Medkit", "Pickaxe"):
        state.apply_action(CARD_NAMES.index(name))
    assert decide(game, state) == "Pickaxe"


def test_stops_at_once_in_the_last_round_and_does_not_interrupt_there():
    game, state = dealt(*OPENING, contested_resources=1)
    assert decide(game, state) == '["STOP", []]'
    state = armed(game, state)
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    assert '["SNIPER", "Brawler"]' in [state.action_to_string(1, a) for a in state.legal_actions()]
    assert decide(game, state) == '["STOP", ""]'


def armed(game, state):
    """Seat 1 of `state` given a Sniper Team and a Saboteur (as if hired earlier), seat 0's hand shown."""
    view = state.observation_dict(1)
    view["hand"] = sorted(view["hand"] + ["Sniper Team", "Saboteur"], key=CARD_NAMES.index)
    for pile in view["mercenaries"]:
        pile["left"] -= pile["card"] in ("Sniper Team", "Saboteur")
    view["opponent_knows"]["cards_known"] = dict(Counter(view["opponent_knows"]["cards_known"])
                                                 + Counter(["Sniper Team", "Saboteur"]))
    view["opponent"]["hand_seen"] = dict(Counter(OPENING[0]))
    return game.state_from_view(1, view)


def test_interrupts_and_skirmishes_against_the_most_valuable_card():
    game, state = dealt(*OPENING)
    state = armed(game, state)
    say(state, '["DIG", ["Brawler", "Shovel"]]')
    assert decide(game, state) == '["SNIPER", "Brawler"]'
    game, state = dealt(*OPENING)
    state = armed(game, state)
    say(state, '["STOP", []]')
    say(state, '["STOP", []]')
    assert decide(game, state) == '["SNIPER", "Brawler"]'
    say(state, '["SNIPER", "Brawler"]')
    assert decide(game, state) == '["SABOTEUR", "Shovel"]'


def test_always_legal_reproducible_and_ahead_of_random_play():
    game = load_game(GAME, preset="gamebench")

    def reproducible(state, action, seed):
        if seed < 2:
            assert decide(game, state, seed) == state.action_to_string(state.current_player(), action)

    total = 0.0
    for seed in range(40):
        seat = seed % 2
        state = play_against_random(NAME, game, {seat: seed}, random.Random(seed), reproducible,
                                    step_randomly=True)
        total += state.returns()[seat]
    assert total >= 34, total
