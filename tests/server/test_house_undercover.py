"""The Undercover house agent, driven as the referee drives it (MatchStarted, then DecisionRequests with
the observation, the conversation, the legal actions and the message spec), without a server."""

from __future__ import annotations

import random
from functools import partial

from arena_engines import load_game
from arena_engines.undercover import WORDS, mentions
from arena_engines.undercover_words import ASSOCIATIONS, WORD_PAIRS
from arena_server.house import HOUSE_AGENTS

from .house_harness import answer_in_another_game, house_answer

GAME = "undercover"
AGENT = "undercover_association"


ask = partial(house_answer, AGENT)


def dealt(civilian: str, undercover: str, seat: int, preset: str = "llmarena"):
    game = load_game(GAME, preset=preset)
    state = game.new_initial_state()
    for k, pair in enumerate(WORD_PAIRS):
        for f in (0, 1):
            if (pair[f], pair[1 - f]) == (civilian, undercover):
                state.apply_action(2 * k + f)
    state.apply_action(seat)
    return game, state


def test_the_agent_is_registered_for_undercover_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "association" in description and factory(0).games == frozenset({GAME})
    assert answer_in_another_game(AGENT) is None


def test_clues_come_from_the_association_table_and_are_never_repeated():
    game, state = dealt("tea", "coffee", seat=2, preset="magic")
    clues = []
    while not state.is_simultaneous_node():
        seat = state.current_player()
        action, message = ask(game, state, seat, seed=len(clues))
        assert action == state.legal_actions(seat)[0]
        assert message in ASSOCIATIONS[state.observation_dict(seat)["word"]]
        state.apply_action(action, message)           # the game accepts it
        clues.append(message)
    assert len(clues) == 6 and len(set(clues)) == 6


def test_an_exhausted_table_falls_back_to_an_acceptable_neutral_word():
    game, state = dealt("tea", "coffee", seat=4)
    for text in ASSOCIATIONS["tea"][:4]:
        state.apply_action(5, text)
    state.apply_action(5, ASSOCIATIONS["tea"][4])      # seat 4's clue uses the last association of "tea"
    # Round 1 is over, every association of "tea" has been said; player_1 is voted out.
    state.apply_actions([1, 0, 1, 1, 1])
    state.apply_action(1)
    _, message = ask(game, state, 0)
    assert message not in ASSOCIATIONS["tea"] and not any(mentions(message, w) for w in WORDS)
    state.apply_action(5, message)


def vote_of(clues: dict, word_seat: int = 0, seed: int = 0) -> int:
    """Seat `word_seat`'s vote after one clue per seat (clues[seat]); the civilians have "tea"."""
    game, state = dealt("tea", "coffee", seat=3)
    for seat in range(5):
        state.apply_action(5, clues[seat])
    action, message = ask(game, state, word_seat, seed)
    assert message is None
    return action


def test_the_vote_goes_to_the_player_whose_clues_overlap_least_with_its_word():
    # Overlap with tea's associations (kettle, leaves, herbal, cup, biscuit): player_1 1, player_2 2,
    # player_3 0 (coffee's espresso and caffeine), player_4 1.
    clues = {0: "a biscuit", 1: "kettle", 2: "herbal leaves", 3: "espresso caffeine", 4: "in a cup"}
    assert {vote_of(clues, seed=s) for s in range(10)} == {3}


def test_a_player_who_names_the_agents_word_is_voted_first():
    # player_3 (the undercover, "coffee") names "tea", so it cannot have it: it goes before player_2,
    # whose clue shares nothing with tea's associations.
    clues = {0: "a biscuit", 1: "kettle", 2: "sunny", 3: "better than tea", 4: "in a cup"}
    assert {vote_of(clues, seed=s) for s in range(10)} == {3}


def test_ties_are_broken_at_random_among_the_least_only():
    clues = {0: "a biscuit", 1: "kettle", 2: "sunny", 3: "warm", 4: "in a cup"}
    assert {vote_of(clues, seed=s) for s in range(20)} == {2, 3}


def test_house_agents_in_every_seat_play_whole_games_their_moves_always_accepted():
    outcomes = []
    for preset in ("llmarena", "magic"):
        game = load_game(GAME, preset=preset)
        for seed in range(6):
            rng = random.Random(seed)
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                elif state.is_simultaneous_node():
                    state.apply_actions([ask(game, state, s, seed)[0] if s in state.current_players() else 0
                                         for s in range(state.num_players)])
                else:
                    state.apply_action(*ask(game, state, state.current_player(), seed))
            outcomes.append(state.result_details()["outcome"])
    # Their clues betray the undercover, whose word has other associations: the civilians win most.
    assert outcomes.count("civilians_won") >= 9
