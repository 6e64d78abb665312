"""The Pirate Game's house agents, driven as the referee drives them (MatchStarted, then DecisionRequests
built from a real engine state, with the proposal turn's message spec and the conversation), without a
server."""

from __future__ import annotations

import random

from arena_engines import load_game
from arena_engines.pirate_game import ACCEPT, PROPOSE, REJECT, proposal_text
from arena_server.house import HOUSE_AGENTS

from .house_harness import house_answer as answer

GAME = "pirate_game"
OPTIMAL, FAIR = "pirate_optimal", "pirate_fair"


def votes_of(name: str, game, state) -> list[int]:
    return [answer(name, game, state, seat)[0] for seat in state.current_players()]


def test_both_agents_are_registered_for_the_pirate_game_only():
    for name in (OPTIMAL, FAIR):
        description, factory = HOUSE_AGENTS[name]
        assert description.startswith("Pirate Game") and factory(0).games == frozenset({GAME})
        assert factory(0).plays(GAME) and not factory(0).plays("divide_the_dollar")


def test_the_optimal_pirate_proposes_one_coin_to_every_second_pirate_after_the_next():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    action, message = answer(OPTIMAL, game, state, 0)
    assert action == PROPOSE and message == proposal_text(1, [96, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    assert state.check_message(0, message) == message
    # Two pirates thrown overboard: eight aboard, seat 2 keeps 97.
    for _ in range(2):
        state.apply_action(PROPOSE, state.default_message(state.current_player()))
        state.apply_actions([REJECT] * 10)
    assert answer(OPTIMAL, game, state, 2) == (PROPOSE, proposal_text(3, [97, 0, 1, 0, 1, 0, 1, 0]))
    small = load_game(GAME, preset="gamabench_g4")
    assert answer(OPTIMAL, small, small.new_initial_state(), 0)[1] == proposal_text(1, [0, 0, 1, 0, 1, 0, 1, 0, 1, 0])


def test_the_optimal_pirate_votes_by_stewarts_rule():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    state.apply_action(PROPOSE, proposal_text(1, [88, 1, 1, 2, 0, 1, 5, 0, 1, 1]))
    # Positions 1..9: 1 coin odd (reject), 1 even (accept), 2 (accept), 0 (reject), 1 odd, 5, 0, 1 even, 1 odd.
    assert votes_of(OPTIMAL, game, state) == [REJECT, ACCEPT, ACCEPT, REJECT, REJECT, ACCEPT, REJECT, ACCEPT, REJECT]
    # After one proposer goes overboard the positions shift: seat 2 is position 1 of pirate 2's plan.
    state.apply_actions([REJECT] * 10)
    state.apply_action(PROPOSE, proposal_text(2, [95, 1, 1, 1, 1, 1, 0, 0, 0]))
    assert votes_of(OPTIMAL, game, state) == [REJECT, ACCEPT, REJECT, ACCEPT, REJECT, REJECT, REJECT, REJECT]


def test_optimal_pirates_settle_in_the_first_round_and_score_100_at_100_gold():
    # At 400 gold the optimal [396, 0, 1, ...] is [99, 0, 0.25, ...] on GAMA-Bench's 100-gold scale,
    # 6 from its optimum [96, 0, 1, ...]: 50 * 194 / 200 + 50 = 98.5.
    for preset, score in (("gamabench", 100.0), ("gamabench_g400", 98.5)):
        game = load_game(GAME, preset=preset)
        state = game.new_initial_state()
        action, message = answer(OPTIMAL, game, state, 0)
        state.apply_action(action, message)
        state.apply_actions([0] + votes_of(OPTIMAL, game, state))
        assert state.is_terminal() and state.result_details()["rounds"][0]["accepts"] == 5
        assert state.result_details()["gamabench"]["score"] == score


def test_the_fair_pirate_proposes_the_equal_split_and_accepts_an_equal_share():
    game = load_game(GAME, {"gold": 23}, num_players=5)
    state = game.new_initial_state()
    assert answer(FAIR, game, state, 0) == (PROPOSE, proposal_text(1, [7, 4, 4, 4, 4]))
    state.apply_action(PROPOSE, proposal_text(1, [10, 4, 5, 3, 1]))
    assert votes_of(FAIR, game, state) == [ACCEPT, ACCEPT, REJECT, REJECT]


def test_the_agents_play_whole_games_with_legal_moves_and_valid_proposals():
    rng = random.Random(4)
    for players in (2, 3, 7, 10):
        game = load_game(GAME, {"gold": rng.choice([4, 5, 100, 400])}, num_players=players)
        state = game.new_initial_state()
        names = [rng.choice([OPTIMAL, FAIR]) for _ in range(players)]
        while not state.is_terminal():
            if state.is_simultaneous_node():
                joint = [0] * players
                for seat in state.current_players():
                    action, message = answer(names[seat], game, state, seat)
                    assert action in state.legal_actions(seat) and message is None
                    joint[seat] = action
                state.apply_actions(joint)
            else:
                seat = state.current_player()
                action, message = answer(names[seat], game, state, seat)
                assert action == PROPOSE and state.check_message(seat, message) == message
                state.apply_action(action, message)
        assert sum(g for g in state.result_details()["gold"]) == game.parameters["gold"]
