"""The Chameleon house agent, driven as the referee drives it (MatchStarted, then DecisionRequests with
the observation, the conversation, the legal actions and the message spec), without a server."""

from __future__ import annotations

import random
from collections import Counter
from functools import partial

from arena_engines import load_game
from arena_engines.chameleon_settings import CUES, TOPIC_CUES, setting_index
from arena_server.house import HOUSE_AGENTS

from .house_harness import answer_in_another_game, house_answer

GAME = "chameleon"
AGENT = "chameleon_cues"
CLUE, ABSTAIN, GUESS = 3, 4, 5


ask = partial(house_answer, AGENT)


def dealt(topic: str, word: str, chameleon: int):
    game = load_game(GAME, preset="magic")
    state = game.new_initial_state()
    state.apply_action(setting_index(topic, word))
    state.apply_action(chameleon)
    return game, state


def test_the_agent_is_registered_for_the_chameleon_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "cue" in description and factory(0).games == frozenset({GAME})
    assert answer_in_another_game(AGENT) is None


def test_non_chameleons_say_unused_cues_of_the_word_and_a_chameleon_speaking_first_a_topic_cue():
    for seed in range(6):
        game, state = dealt("Fruits", "Grape", 0)
        action, clue = ask(game, state, 0, seed)
        assert action == CLUE and clue in TOPIC_CUES["Fruits"]
        state.apply_action(action, clue)
        said = []
        for seat in (1, 2):
            action, clue = ask(game, state, seat, seed)
            assert clue in CUES["Grape"] and clue not in said
            state.apply_action(action, clue)            # the game accepts it
            said.append(clue)


def test_a_chameleon_speaking_last_says_a_cue_of_the_word_the_clues_point_to():
    game, state = dealt("Fruits", "Grape", 2)
    state.apply_action(CLUE, "vine")
    state.apply_action(CLUE, "raisin")
    for seed in range(6):
        _, clue = ask(game, state, 2, seed)
        assert clue in ("bunch", "vineyard")               # Grape's cues not said yet


def at_vote(clues: tuple[str, str, str], chameleon: int = 2):
    game, state = dealt("Fruits", "Grape", chameleon)
    for clue in clues:
        state.apply_action(CLUE, clue)
    return game, state


def test_non_chameleons_vote_for_the_clue_that_fits_their_word_least():
    game, state = at_vote(("vine", "raisin", "sweet"))
    assert {ask(game, state, 0, seed) for seed in range(8)} == {(2, None)}
    assert {ask(game, state, 1, seed) for seed in range(8)} == {(2, None)}


def test_a_clue_naming_the_word_is_voted_first():
    # Player 3 names the word: only the chameleon can. Player 2's "sweet" fits Grape's cues no better.
    game, state = at_vote(("vine", "sweet", "a grape?"))
    assert {ask(game, state, 0, seed)[0] for seed in range(8)} == {2}


def test_ties_are_broken_at_random_among_the_least_fitting_only():
    game, state = at_vote(("vine", "sweet", "juicy"))
    assert {ask(game, state, 0, seed)[0] for seed in range(20)} == {1, 2}


def test_a_caught_chameleon_guesses_the_word_the_others_clues_fit_best():
    game, state = at_vote(("vine", "raisin", "sweet"))
    state.apply_actions([2, 2, 0])
    assert state.current_player() == 2
    for seed in range(5):
        action, message = ask(game, state, 2, seed)
        assert (action, message) == (GUESS, 'I guess the code is "Grape".')
    state.apply_action(GUESS, message)
    assert state.result_details()["outcome"] == "caught_right_guess"


def test_house_agents_in_every_seat_play_whole_games_their_moves_always_accepted():
    game = load_game(GAME, preset="magic")
    outcomes = {0: Counter(), 1: Counter(), 2: Counter()}
    for seed in range(30):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            elif state.is_simultaneous_node():
                state.apply_actions([ask(game, state, s, seed)[0] for s in range(state.num_players)])
            else:
                state.apply_action(*ask(game, state, state.current_player(), seed))
        details = state.result_details()
        outcomes[details["chameleon"]][details["outcome"]] += 1
    # Speaking first, the chameleon can only give a cue of the topic: the others' cues of the word give
    # it away, and then give it the word. Speaking later, it echoes the word the clues point to and
    # escapes at times.
    assert set(outcomes[0]) == {"caught_right_guess"}
    later = outcomes[1] + outcomes[2]
    assert later["wrong_accusation"] + later["even_vote"] > 0
