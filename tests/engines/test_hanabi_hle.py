"""Hanabi against DeepMind's hanabi-learning-environment (HLE), the engine LLMArena ran through
PettingZoo's hanabi_v5: many random games played in both with the same cards dealt in the same order,
comparing at every step who acts, the legal moves, the tokens, fireworks, deck, discard pile, every
hand and every card's knowledge, and at the end the score and the end of the game.

HLE (pip package hanabi-learning-environment) is a test dependency (pyproject.toml's test extra). It
builds from source with CMake; with CMake 4 it needs CMAKE_POLICY_VERSION_MINIMUM=3.5 in the
environment of the pip install, which scripts/bootstrap.sh sets."""

from __future__ import annotations

import random

import pytest
from hanabi_learning_environment import pyhanabi

from arena_engines import load_game

COLOUR_NAMES = ["Red", "Yellow", "Green", "White", "Blue"]

# (our parameters, number of games): the LLMArena preset, and larger decks, hands and token counts so
# that reveals, completed fireworks and the last round after the deck runs out are all reached.
CONFIGURATIONS = [
    ({}, 200),
    ({"max_life_tokens": 3}, 150),
    ({"colours": 3, "hand_size": 3, "max_information_tokens": 8, "max_life_tokens": 3}, 60),
    ({"colours": 5, "hand_size": 5, "max_information_tokens": 8, "max_life_tokens": 3}, 24),
    ({"colours": 1, "ranks": 3, "hand_size": 1, "max_information_tokens": 2, "max_life_tokens": 3}, 100),
    ({"colours": 2, "ranks": 3, "hand_size": 4, "max_information_tokens": 1, "max_life_tokens": 2}, 100),
]


def hle_game(parameters: dict, seed: int):
    return pyhanabi.HanabiGame({
        "players": 2, "colors": parameters["colours"], "ranks": parameters["ranks"],
        "hand_size": parameters["hand_size"], "max_information_tokens": parameters["max_information_tokens"],
        "max_life_tokens": parameters["max_life_tokens"], "seed": seed, "random_start_player": False,
        "observation_type": pyhanabi.AgentObservationType.CARD_KNOWLEDGE.value,
    })


def card_dict(card) -> dict:
    return {"colour": COLOUR_NAMES[card.color()], "rank": card.rank() + 1}


def knowledge_dict(knowledge, colours: int, ranks: int) -> dict:
    colour, rank = knowledge.color(), knowledge.rank()
    return {
        "colour": COLOUR_NAMES[colour] if colour is not None else None,
        "rank": rank + 1 if rank is not None else None,
        "possible_colours": [COLOUR_NAMES[c] for c in range(colours) if knowledge.color_plausible(c)],
        "possible_ranks": [r + 1 for r in range(ranks) if knowledge.rank_plausible(r)],
    }


def assert_same_state(ours, theirs, parameters: dict) -> None:
    colours, ranks = parameters["colours"], parameters["ranks"]
    current = theirs.cur_player()
    if theirs.is_terminal():
        assert ours.is_terminal()
    else:
        assert ours.current_player() == current
    hands = theirs.player_hands()
    for seat in (0, 1):
        view = ours.observation_dict(seat)
        observation = theirs.observation(seat)
        assert view["information_tokens"] == theirs.information_tokens()
        assert view["life_tokens"] == theirs.life_tokens()
        assert view["fireworks"] == theirs.fireworks()
        assert view["deck_size"] == theirs.deck_size()
        assert view["discard_pile"] == [card_dict(c) for c in theirs.discard_pile()]
        assert view["partner_hand"] == [card_dict(c) for c in hands[1 - seat]]
        knowledge = observation.card_knowledge()       # [own cards, partner's cards], relative to seat
        assert view["my_knowledge"] == [knowledge_dict(k, colours, ranks) for k in knowledge[0]]
        assert view["partner_knowledge"] == [knowledge_dict(k, colours, ranks) for k in knowledge[1]]


def is_misplay(move, hand, state) -> bool:
    if move.type() != pyhanabi.HanabiMoveType.PLAY:
        return False
    card = hand[move.card_index()]
    return not state.card_playable_on_fireworks(card.color(), card.rank())


def play_both(parameters: dict, seed: int, careful: bool) -> tuple:
    """One random game in both engines: (our state, HLE state, HLE game, which must outlive its
    state). A careful player never makes a play that would not fit (it peeks at its own cards) unless
    nothing else is legal, so that games also reach the last round and complete fireworks."""
    game = load_game("hanabi", parameters)
    resolved = game.parameters
    ours = game.new_initial_state()
    hle = hle_game(resolved, seed)
    theirs = hle.new_initial_state()
    rng = random.Random(seed)
    while not theirs.is_terminal():
        assert_same_state(ours, theirs, resolved)
        if theirs.cur_player() == pyhanabi.CHANCE_PLAYER_ID:
            before = [len(hand) for hand in theirs.player_hands()]
            theirs.deal_random_card()
            hands = theirs.player_hands()
            seat = next(s for s in (0, 1) if len(hands[s]) > before[s])
            card = hands[seat][-1]                      # HLE adds a drawn card at the end of the hand
            ours.apply_action(card.color() * resolved["ranks"] + card.rank())
            continue
        legal = sorted(hle.get_move_uid(move) for move in theirs.legal_moves())
        assert ours.legal_actions() == legal
        if careful:
            hand = theirs.player_hands()[theirs.cur_player()]
            legal = [uid for uid in legal if not is_misplay(hle.get_move(uid), hand, theirs)] or legal
        uid = rng.choice(legal)
        ours.apply_action(uid)
        theirs.apply_move(hle.get_move(uid))
    assert_same_state(ours, theirs, resolved)
    return ours, theirs, hle


@pytest.mark.parametrize("parameters,games", CONFIGURATIONS)
def test_random_games_match_hle_move_for_move(parameters, games):
    ends = set()
    for seed in range(games):
        ours, theirs, _hle = play_both(parameters, seed, careful=seed % 2 == 1)
        assert ours.is_terminal()
        assert ours.returns() == [float(theirs.score())] * 2
        ends.add(ours.result_details()["end_reason"])
    assert {"lives_lost", "deck_out"} <= ends          # both ends were reached and compared


def test_complete_fireworks_end_the_game_as_in_hle():
    ends = set()
    for seed in range(60):
        ours, theirs, _hle = play_both({"colours": 1, "ranks": 3, "hand_size": 2}, seed, careful=True)
        assert ours.returns() == [float(theirs.score())] * 2
        ends.add(ours.result_details()["end_reason"])
    assert "fireworks_complete" in ends


def test_without_the_zero_rule_a_lost_game_scores_its_fireworks_where_hle_scores_zero():
    seen_loss = False
    for seed in range(100):
        ours, theirs, _hle = play_both({"zero_when_lives_lost": False}, seed, careful=False)
        if theirs.life_tokens() == 0:
            seen_loss = True
            assert theirs.score() == 0
            assert ours.returns() == [float(sum(theirs.fireworks()))] * 2
    assert seen_loss
