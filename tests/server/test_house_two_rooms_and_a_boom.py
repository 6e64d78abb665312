"""The Two Rooms and a Boom house agent, driven as the referee drives it (MatchStarted, then
DecisionRequests with the observation, the conversation, the legal actions and the message spec),
without a server."""

from __future__ import annotations

import random
from functools import partial

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .house_harness import house_answer

GAME = "two_rooms_and_a_boom"
AGENT = "trb_teamplay"
SWAP = 16


ask = partial(house_answer, AGENT)


def act(state, player: int, action: int, message=None):
    actions, messages = [0] * state.num_players, [None] * state.num_players
    actions[player - 1], messages[player - 1] = action, message
    state.apply_actions(actions, messages if message is not None else None)


def mixed_rooms(preset="gamebench"):
    """Room 0 = [1, 2, 4] led by 1 (Blue), room 1 = [5, 6, 3] led by 5 (Red); President 2, Bomber 6."""
    game = load_game(GAME, {"setup_swaps": 1, "rounds": 1}, preset=preset)
    state = game.new_initial_state()
    for outcome in (2, 6, 3 * SWAP + 4, 1, 5):
        state.apply_action(outcome)
    return game, state


def test_the_agent_is_registered_for_two_rooms_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "teammates" in description and factory(0).games == frozenset({GAME})


def test_it_questions_an_unheard_teammate_and_tells_teammates_the_truth_and_opponents_nothing():
    game, state = mixed_rooms()
    assert {ask(game, state, 0, seed) for seed in range(6)} == {(2, None)}     # player 2, its teammate, not 4
    act(state, 1, 2)
    action, question = ask(game, state, 0)
    assert (action, question) == (0, "I am not the President. Are you the President?")
    act(state, 1, 0, question)
    action, answer = ask(game, state, 1)
    assert (action, answer) == (0, "I am the President.")
    act(state, 2, 0, answer)
    # Player 2's only teammate in the room is player 1: it tells its standing again (a Leader would read it
    # in the report of the exchange).
    assert ask(game, state, 1) == (1, None)
    act(state, 2, 1)
    assert ask(game, state, 1) == (0, "I am the President. Are you the President?")
    act(state, 2, 0, "I am the President. Are you the President?")
    assert ask(game, state, 0) == (0, "I am not the President.")
    act(state, 1, 0, "I am not the President.")
    # Red's player 4 has only opponents around: it asks their team and is told nothing.
    target, _ = ask(game, state, 3)
    assert target in (1, 2)
    act(state, 4, target)
    assert ask(game, state, 3) == (0, "Which team are you on?")
    act(state, 4, 0, "Which team are you on?")
    assert ask(game, state, target - 1) == (0, "I would rather not say.")


def test_without_its_role_it_says_so():
    game, state = mixed_rooms(preset="gamebench_code")
    act(state, 1, 2)
    assert ask(game, state, 0) == (0, "Nobody told me my role. Are you the President?")


def finish_talk(state, words):
    """Room 0 [1, 2, 4], room 1 [5, 6, 3]: each player's exchange, {asker: (target, question, answer)}."""
    for asker in (1, 2, 4, 5, 6, 3):
        target, question, answer = words[asker]
        act(state, asker, target)
        act(state, asker, 0, question)
        act(state, target, 0, answer)


def test_leaders_send_the_hostage_that_best_serves_their_team_one_swap_ahead():
    game, state = mixed_rooms()
    finish_talk(state, {
        1: (4, "Which team are you on?", "I would rather not say."),
        2: (4, "I am the President. Are you the President?", "I would rather not say."),   # reported to 1
        4: (1, "Which team are you on?", "I would rather not say."),
        5: (3, "Which team are you on?", "I would rather not say."),
        6: (5, "I am the Bomber. Are you the Bomber?", "I am not the Bomber."),
        3: (6, "Which team are you on?", "I would rather not say."),
    })
    # Blue's Leader knows the President (2) is with it: keeping it and sending Red's 4 away leaves the
    # Bomber in room 0 with chance 2/9 (Blue wins 7/9), against 4/9 when the President leaves (5/9).
    assert {ask(game, state, 0, seed)[0] for seed in range(5)} == {4}
    act(state, 1, 4)
    # Red's Leader knows the Bomber (6): sending it to room 0, where two Blue players may stay, gives Red
    # 4/9 against 2/9 for sending Blue's 3 and keeping the Bomber.
    assert {ask(game, state, 4, seed)[0] for seed in range(5)} == {6}


def play(game, house_side, seed: int) -> float:
    """One game, the house agent on `house_side`'s seats, uniform random play with pool sentences on the
    other's; the house side's score."""
    sides = game.seat_sides()
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        seats = state.current_players()
        if seats and sides[seats[0]] == house_side:
            act(state, seats[0] + 1, *ask(game, state, seats[0], seed))
        else:
            state.step_randomly(rng)
    return state.returns()[sides.index(house_side)]


def test_the_agent_wins_more_often_than_random_play_on_either_side():
    game = load_game(GAME, preset="gamebench")
    for side in (0, 1):
        house = sum(play(game, side, seed) for seed in range(80))
        baseline = 0.0
        for seed in range(80):
            state = game.new_initial_state()
            rng = random.Random(seed)
            while not state.is_terminal():
                state.step_randomly(rng)
            baseline += state.returns()[game.seat_sides().index(side)]
        assert house > baseline + 4, (side, house, baseline)
