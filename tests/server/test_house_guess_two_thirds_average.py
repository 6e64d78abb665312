"""The Guess 2/3 house agent picks the last round's target, the middle of the range at first."""

from __future__ import annotations

from arena_engines import load_game

from .test_house import decide


def test_it_picks_the_middle_then_the_last_target():
    game = load_game("guess_two_thirds_average", {"rounds": 3}, num_players=3)
    state = game.new_initial_state()
    assert decide("guess_last_target", "guess_two_thirds_average", game, state, 0) == 50
    state.apply_actions([30, 60, 90])           # average 60, target 40
    assert decide("guess_last_target", "guess_two_thirds_average", game, state, 1) == 40
    state.apply_actions([100, 100, 100])        # target 66.67: rounds to 67
    assert decide("guess_last_target", "guess_two_thirds_average", game, state, 2) == 67
