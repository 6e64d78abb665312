"""The hold'em house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built
from a real engine state), without a server: it raises strong hands, checks or calls by the pot odds,
folds weak hands facing a bet, always answers a legal action, and beats random play."""

from __future__ import annotations

import random
from functools import partial

import pytest

from arena_engines import load_game
from arena_engines.texas_holdem_no_limit import card_id
from arena_server.house import HOUSE_AGENTS

from . import test_house
from .house_harness import play_against_random

GAME = "texas_holdem_no_limit"
NAME = "holdem_hand_strength"
FOLD, CALL, HALF, POT, ALL_IN = range(5)


decide = partial(test_house.decide, NAME, GAME)


def hand(dealer: int, hole0: str, hole1: str, actions=(), board=(), chips=100):
    """A llmarena hand (with `chips` each): the dealer, hole cards ("Spades A, Hearts A"), then
    actions and board cards as the state asks for them."""
    game = load_game(GAME, {"chips_0": chips, "chips_1": chips}, preset="llmarena")
    state = game.new_initial_state()
    state.apply_action(dealer)
    (a0, b0), (a1, b1) = ([card_id(c) for c in cards.split(", ")] for cards in (hole0, hole1))
    for card in (a0, a1, b0, b1):
        state.apply_action(card)
    actions, board = list(actions), [card_id(c) for c in board]
    while actions or (board and state.is_chance_node()):
        state.apply_action(board.pop(0) if state.is_chance_node() else actions.pop(0))
    return game, state


def test_registered_for_holdem_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "hold'em" in description
    assert factory(0).games == frozenset({GAME})


def test_raises_the_full_pot_with_aces():
    game, state = hand(0, "Spades A, Hearts A", "Clubs 7, Diamonds 2")
    assert state.legal_actions() == [FOLD, CALL, POT, ALL_IN]
    assert decide(game, state, 0) == POT


def test_raises_half_the_pot_when_the_full_pot_is_not_allowed():
    game, state = hand(0, "Spades A, Hearts A", "Clubs 7, Diamonds 2", [POT, POT], chips=10)
    # Bets 4/8 and a pot of 12: seat 0's 6 chips cover half the pot, not the full pot.
    assert state.current_player() == 0 and state.legal_actions() == [FOLD, CALL, HALF, ALL_IN]
    assert decide(game, state, 0) == HALF


def test_calls_an_all_in_with_a_made_royal_flush():
    game, state = hand(1, "Spades A, Spades K", "Clubs 7, Diamonds 2", [CALL, CALL],
                       ["Spades Q", "Spades J", "Spades 10"])
    state.apply_action(CALL)                        # seat 0 checks
    state.apply_action(ALL_IN)                      # seat 1 shoves
    assert state.legal_actions() == [FOLD, CALL]
    assert decide(game, state, 0) == CALL


def test_checks_a_weak_hand_when_checking_is_free():
    game, state = hand(0, "Spades A, Hearts A", "Clubs 7, Diamonds 2", [CALL])
    assert state.current_player() == 1 and state.observation_dict(1)["to_call"] == 0
    assert decide(game, state, 1) == CALL


def test_folds_a_weak_hand_facing_a_big_bet():
    game, state = hand(1, "Clubs 7, Diamonds 2", "Spades A, Hearts A", [ALL_IN])
    assert state.observation_dict(0)["to_call"] == 98
    assert decide(game, state, 0) == FOLD


@pytest.mark.parametrize("bet,owed,pot,answer", [
    (HALF, 2, 6, CALL),         # 2 to win 6 asks for 2 / 8 = 0.25 of the pot: a call
    (ALL_IN, 98, 102, FOLD),    # 98 to win 102 asks for 98 / 200 = 0.49: a fold
])
def test_a_middling_hand_calls_when_the_pot_odds_pay(bet, owed, pot, answer):
    # Two overcards and a backdoor flush draw on the flop: about 0.44 against a random hand.
    game, state = hand(1, "Hearts Q, Hearts J", "Clubs 7, Diamonds 2", [CALL, CALL],
                       ["Hearts 2", "Clubs 8", "Spades 3"])
    state.apply_action(CALL)                        # seat 0 checks
    state.apply_action(bet)
    assert state.observation_dict(0)["to_call"] == owed and state.observation_dict(0)["pot"] == pot
    assert decide(game, state, 0) == answer


@pytest.mark.parametrize("seat", [0, 1])
def test_always_legal_reproducible_and_ahead_of_random_play(seat):
    game = load_game(GAME, preset="llmarena")

    def reproducible(state, action, seed):
        assert decide(game, state, seat, seed) == decide(game, state, seat, seed)

    total = 0.0
    for seed in range(100):
        state = play_against_random(NAME, game, {seat: seed}, random.Random(seed), reproducible)
        total += state.returns()[seat]
    assert total > 200, total           # several chips a hand on average
