"""El Farol Bar's house agents, driven as the referee drives them (MatchStarted, then DecisionRequests
built from a real engine state), without a server."""

from __future__ import annotations

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .test_house import decide

GAME = "el_farol_bar"
STAY, GO = 0, 1


def test_the_agents_are_registered_for_this_game_only():
    for name in ("farol_mixed_nash", "farol_last_seen"):
        description, factory = HOUSE_AGENTS[name]
        assert description.startswith("El Farol Bar") and factory(0).games == frozenset({GAME})
    chess_like = load_game("tic_tac_toe")
    assert decide("farol_last_seen", "tic_tac_toe", chess_like, chess_like.new_initial_state(), 0) is None


@pytest.mark.parametrize("preset,percent", [("gamabench", 60), ("gamabench_r20", 20), ("gamabench_r0", 0),
                                            ("gamabench_r100", 100)])
def test_mixed_nash_goes_with_probability_equal_to_the_capacity(preset, percent):
    game = load_game(GAME, {"players": 3, "rounds": 2}, preset=preset)
    state = game.new_initial_state()
    choices = [decide("farol_mixed_nash", GAME, game, state, seed % 3, seed=seed) for seed in range(400)]
    assert set(choices) <= {STAY, GO}
    share = choices.count(GO) / len(choices)
    assert share == pytest.approx(percent / 100, abs=0.07)


def test_mixed_nash_is_reproducible_from_its_seed():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    first = [decide("farol_mixed_nash", GAME, game, state, 0, seed=s) for s in range(30)]
    assert first == [decide("farol_mixed_nash", GAME, game, state, 0, seed=s) for s in range(30)]
    assert len(set(first)) == 2


def last_seen_choices(mode: str, others: list[list[int]]) -> list[int]:
    """farol_last_seen's choices at seat 0 of a 5-seat game (capacity 60%: 3 goers are fine, 4 are a
    crowd) against scripted seats 1-4, round by round."""
    game = load_game(GAME, {"players": 5, "rounds": len(others), "mode": mode})
    state = game.new_initial_state()
    mine = []
    for joint in others:
        mine.append(decide("farol_last_seen", GAME, game, state, 0))
        state.apply_actions([mine[-1]] + joint)
    return mine


# What seats 1-4 do: 3 of them go (a crowd if seat 0 goes too), all 4 go, 1 goes.
CROWD, PACKED, QUIET = [GO, GO, GO, STAY], [GO, GO, GO, GO], [GO, STAY, STAY, STAY]
NIGHTS = [CROWD, PACKED, QUIET, CROWD, QUIET]


def test_last_seen_in_implicit_mode_stays_one_night_after_a_crowd_then_goes_back_to_look():
    # Round 1: goes (no news yet) into a crowd of 4; round 2: stays home and learns nothing; round 3:
    # goes back to look and finds it quiet; round 4: goes again, into a crowd; round 5: stays.
    assert last_seen_choices("implicit", NIGHTS) == [GO, STAY, GO, GO, STAY]


def test_last_seen_in_explicit_mode_follows_last_nights_attendance():
    # Every night is reported, the packed one spent at home too: it goes exactly after a night within
    # capacity.
    assert last_seen_choices("explicit", NIGHTS) == [GO, STAY, STAY, GO, STAY]
