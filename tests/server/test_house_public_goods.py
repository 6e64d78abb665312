"""House agents of the public goods game, driven as the referee drives them (MatchStarted, then
DecisionRequests built from a real engine state), without a server."""

from __future__ import annotations

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .test_house import decide

GAME = "public_goods"
FREE_RIDER, CONDITIONAL = "public_goods_free_rider", "public_goods_conditional_cooperator"


def choices(name: str, preset: str, others: list[list[int]], seat: int = 0, **overrides) -> list[int]:
    """The house agent's contribution each round at `seat`, the other seats playing `others` (one list
    of their contributions per round, in seat order without `seat`)."""
    game = load_game(GAME, {"rounds": len(others), **overrides}, preset=preset, num_players=len(others[0]) + 1)
    state = game.new_initial_state()
    mine = []
    for theirs in others:
        mine.append(decide(name, GAME, game, state, seat))
        state.apply_actions(theirs[:seat] + [mine[-1]] + theirs[seat:])
    assert state.is_terminal()
    return mine


def test_both_agents_are_registered_for_this_game_only():
    for name in (FREE_RIDER, CONDITIONAL):
        description, factory = HOUSE_AGENTS[name]
        assert "public goods" in description and factory(0).games == frozenset({GAME})
    game = load_game("connect_four")
    assert decide(FREE_RIDER, "connect_four", game, game.new_initial_state(), 0) is None


@pytest.mark.parametrize("preset", ["gamabench", "magic"])
def test_the_free_rider_never_contributes(preset):
    assert choices(FREE_RIDER, preset, [[20, 20], [0, 5], [13, 7]], seat=1) == [0, 0, 0]


def test_the_conditional_cooperator_opens_with_half_then_matches_the_others_average():
    # 20 tokens a round: opens with 10; then the others' averages 7.5 -> 8, 2 -> 2, 20 -> 20.
    assert choices(CONDITIONAL, "gamabench", [[5, 10], [1, 3], [20, 20], [0, 0]]) == [10, 8, 2, 20]


def test_the_conditional_cooperator_spreads_a_whole_game_budget_and_never_spends_what_it_lacks():
    # 100 points over 5 rounds: opens with 10 (half of 20 a round); then follows the others, 40, until
    # its points run short: after 10 + 40 + 40 only 10 are left, then none.
    assert choices(CONDITIONAL, "magic", [[40, 40]] * 5) == [10, 40, 40, 10, 0]


def test_the_conditional_cooperator_stays_within_the_legal_range():
    # Contributions capped at 6: the opening half of 20 tokens, 10, becomes 6.
    assert choices(CONDITIONAL, "gamabench", [[6, 6], [6, 6]], max_contribution=6) == [6, 6]


def test_the_conditional_cooperator_rounds_the_average_half_up():
    assert choices(CONDITIONAL, "gamabench", [[2, 3], [0, 0]])[1] == 3       # 2.5 -> 3
    assert choices(CONDITIONAL, "gamabench", [[1, 2], [0, 0]])[1] == 2       # 1.5 -> 2
    assert choices(CONDITIONAL, "gamabench", [[0, 1], [0, 0]])[1] == 1       # 0.5 -> 1
