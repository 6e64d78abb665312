"""The Cost Sharing house agent, driven as the referee drives it (MatchStarted, then DecisionRequests with
the observation, the legal actions and the message spec), without a server."""

from __future__ import annotations

import random
from functools import partial

from arena_engines import load_game
from arena_engines.cost_sharing import ABSTAIN_ACTION, SPLIT_ID, SPLITS, VOTE_ACTIONS
from arena_server.house import HOUSE_AGENTS
from arena_server.house.cost_sharing import usage_split, usage_weights

from .house_harness import answer_in_another_game, house_answer

GAME = "cost_sharing"
AGENT = "cost_sharing_usage"


ask = partial(house_answer, AGENT)


def in_setting(setting: int, **overrides):
    game = load_game(GAME, {"setting": setting, **overrides}, preset="magic")
    state = game.new_initial_state()
    state.apply_action(setting)
    return game, state


def propose(state, *splits):
    for split in splits:
        state.apply_action(SPLIT_ID[split])


def test_the_agent_is_registered_for_cost_sharing_only():
    description, factory = HOUSE_AGENTS[AGENT]
    assert "flight hours" in description and factory(0).games == frozenset({GAME})
    assert answer_in_another_game(AGENT) is None


def test_usage_weights_and_the_split_on_the_released_sample():
    _, state = in_setting(0)
    usage = state.observation_dict(0)["usage"]
    # Flights 90/50/50, passengers 7000/7500/7500, flight hours 157.5/75/75: A's mean share is 43.5 %.
    weights = usage_weights(usage)
    assert weights[0] == sum([90 / 190, 7000 / 22000, 157.5 / 307.5]) / 3 * 100
    assert weights[1] == weights[2]
    # (45, 30, 25) is nearer in squares, but B and C use the airport alike: they pay alike.
    assert usage_split(usage) == (40, 30, 30)


def test_a_proposal_follows_usage_and_says_so():
    game, state = in_setting(3)
    action, message = ask(game, state, 0)
    assert SPLITS[action] == (60, 25, 15)
    assert "flights, passengers and flight hours" in message
    state.apply_action(action, message)            # the game accepts both


def test_a_replayed_proposal_is_played_as_recorded_without_talk():
    game, state = in_setting(0, challenger_seat=2)
    assert ask(game, state, 0) == (SPLIT_ID[(40, 30, 30)], None)
    state.apply_action(SPLIT_ID[(40, 30, 30)])
    assert ask(game, state, 1) == (SPLIT_ID[(50, 25, 25)], None)


def test_the_vote_goes_to_the_nearest_proposal_lowest_seat_on_ties():
    game, state = in_setting(0)                    # own split (40, 30, 30)
    propose(state, (60, 20, 20), (45, 30, 25), (45, 25, 30))
    assert ask(game, state, 0) == (VOTE_ACTIONS[1], None)


def test_the_vote_joins_earlier_voters_on_a_close_split():
    game, state = in_setting(0)
    propose(state, (60, 20, 20), (40, 30, 30), (50, 25, 25))
    state.apply_action(VOTE_ACTIONS[2])            # Player 1 votes for (50, 25, 25): within 10 points
    assert ask(game, state, 1)[0] == VOTE_ACTIONS[2]


def test_the_vote_does_not_join_a_far_split_unless_it_completes_the_agreement():
    game, state = in_setting(0)
    propose(state, (80, 10, 10), (40, 30, 30), (35, 35, 30))
    state.apply_action(VOTE_ACTIONS[0])            # (80, 10, 10) is 40 points off for A
    assert ask(game, state, 1)[0] == VOTE_ACTIONS[1]
    state.apply_action(VOTE_ACTIONS[0])            # both earlier voters chose (80, 10, 10)
    assert ask(game, state, 2)[0] == VOTE_ACTIONS[0]
    state.apply_action(VOTE_ACTIONS[0])
    assert state.result_details()["agreed_split"] == [80, 10, 10]


def test_an_abstention_or_split_votes_are_not_followed():
    game, state = in_setting(0)
    propose(state, (50, 25, 25), (40, 30, 30), (45, 30, 25))
    state.apply_action(ABSTAIN_ACTION)
    assert ask(game, state, 1)[0] == VOTE_ACTIONS[1]
    state.apply_action(VOTE_ACTIONS[0])
    assert ask(game, state, 2)[0] == VOTE_ACTIONS[1]


def test_house_agents_in_every_seat_agree_in_round_1_of_every_setting():
    for setting in range(7):
        game, state = in_setting(setting)
        while not state.is_terminal():
            state.apply_action(*ask(game, state, state.current_player()))
        details = state.result_details()
        assert details["agreed_round"] == 1 and details["agreed_proposers"] == [0, 1, 2]


def test_against_random_defenders_every_decision_is_legal_and_its_talk_accepted():
    decisions = 0
    for seed in range(8):
        rng = random.Random(seed)
        game = load_game(GAME, {"challenger_seat": seed % 3}, preset="magic")
        state = game.new_initial_state()
        while not state.is_terminal():
            seat = state.current_player()
            if state.is_chance_node() or seat != seed % 3:
                state.step_randomly(rng)
            else:
                action, message = ask(game, state, seat)
                assert action in state.legal_actions(seat)
                state.apply_action(action, message)       # raises if the game refuses the talk
                decisions += 1
    assert decisions >= 8 * 2                             # at least one proposal and one vote a game
