"""The Codenames house agent, driven as the referee drives it (MatchStarted, then DecisionRequests with
the observation, the conversation, the legal actions and the message spec), without a server."""

from __future__ import annotations

import random
from functools import partial

from arena_engines import load_game
from arena_engines.codenames_words import THEMES, WORDS
from arena_server.house import HOUSE_AGENTS

from .house_harness import house_answer

GAME = "codenames"
AGENT = "codenames_themes"
SMALL = {"first_team_cards": 3, "second_team_cards": 2, "neutral_cards": 1}


ask = partial(house_answer, AGENT)


def dealt(red, blue, assassin, neutral, **parameters):
    game = load_game(GAME, {**SMALL, **parameters}, preset="gamebench")
    state = game.new_initial_state()
    for word in [*red, *blue, assassin, *neutral]:
        state.apply_action(WORDS.index(word))
    return game, state


def board_index(state, word: str) -> int:
    return [card["word"] for card in state.observation_dict(0)["board"]].index(word.upper())


def test_the_agent_is_registered_for_codenames_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "theme" in description and factory(0).games == frozenset({GAME})


def test_the_spymaster_names_the_theme_that_covers_only_its_words():
    # Red: apple, pear (fruit) and car (vehicle); Blue's bus makes "vehicle" unsafe.
    game, state = dealt(["apple", "pear", "car"], ["bus", "dog"], "snow", ["tea"])
    assert {ask(game, state, 0, seed) for seed in range(5)} == {(2, "fruit")}


def test_the_spymaster_never_points_at_the_assassin_and_falls_back_to_a_mixed_theme():
    # Fruit holds the assassin (plum); vehicle has two Red words and one Blue: 2 - 1 = 1; animal has one
    # Red word and one neutral: 1 - 1 = 0. Vehicle it is, for its 2 Red words.
    game, state = dealt(["apple", "car", "taxi"], ["bus", "cat"], "plum", ["dog"])
    assert {ask(game, state, 0, seed) for seed in range(5)} == {(2, "vehicle")}


def test_the_operative_guesses_the_themes_words_up_to_the_number_then_ends_the_turn():
    game, state = dealt(["apple", "pear", "car"], ["bus", "dog"], "snow", ["tea"])
    state.apply_action(2, "fruit")
    first, message = ask(game, state, 1)
    assert message is None and first in (board_index(state, "apple"), board_index(state, "pear"))
    state.apply_action(first)
    second, _ = ask(game, state, 1)
    assert {first, second} == {board_index(state, "apple"), board_index(state, "pear")}
    state.apply_action(second)
    assert ask(game, state, 1)[0] == 7                  # the number is reached: end the turn


def test_a_clue_that_is_no_theme_ends_the_turn_at_once():
    game, state = dealt(["apple", "pear", "car"], ["bus", "dog"], "snow", ["tea"])
    state.apply_action(3, "orchard")
    assert ask(game, state, 1)[0] == 7


def test_house_agents_in_every_seat_play_whole_games_their_moves_always_accepted():
    game = load_game(GAME, preset="gamebench")
    endings = []
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.step_randomly(rng)
            else:
                state.apply_action(*ask(game, state, state.current_player(), seed))
        endings.append(state.result_details()["ending"])
        clues = [m["text"] for m in state.messages()]
        assert set(clues) <= set(THEMES)
    # Theme clues that cover only the team's words: nobody reveals the assassin, a team finds all its words.
    assert endings == ["all_found"] * 6


def test_the_agent_beats_random_play():
    game = load_game(GAME, preset="gamebench")
    wins = 0
    for seed in range(10):
        rng = random.Random(seed)
        house_team = seed % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            seat = state.current_player()
            if seat >= 0 and seat // 2 == house_team:
                state.apply_action(*ask(game, state, seat, seed))
            else:
                state.step_randomly(rng)
        wins += state.result_details()["winner"] == ("red", "blue")[house_team]
    assert wins >= 9
