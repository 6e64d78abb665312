"""House agents of the Diner's Dilemma, driven as the referee drives them (MatchStarted, then
DecisionRequests built from a real engine state), without a server."""

from __future__ import annotations

import pytest

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .test_house import decide

GAME = "diners_dilemma"
CHEAP, COSTLY = 0, 1


def play(name: str, others_rounds: list[list[int]], players: int = 5) -> list[int]:
    """The house agent's orders (seat 0) while seats 1.. order as scripted, round by round."""
    game = load_game(GAME, {"rounds": len(others_rounds)}, preset="gamabench", num_players=players)
    state = game.new_initial_state()
    mine = []
    for others in others_rounds:
        mine.append(decide(name, GAME, game, state, 0))
        state.apply_actions([mine[-1], *others])
    assert state.is_terminal()
    return mine


def test_both_agents_are_registered_for_this_game_only():
    for name in ("diners_always_costly", "diners_reciprocal"):
        description, factory = HOUSE_AGENTS[name]
        assert "diner's dilemma" in description and factory(0).games == frozenset({GAME})


def test_always_costly_orders_costly_whatever_the_others_do():
    assert play("diners_always_costly", [[CHEAP] * 4, [COSTLY] * 4, [CHEAP, COSTLY, CHEAP, COSTLY]]) == [COSTLY] * 3


def test_reciprocal_starts_cheap_and_follows_the_others_last_round():
    others = [
        [CHEAP, CHEAP, CHEAP, COSTLY],      # 3 of 4 others cheap -> cheap next
        [CHEAP, COSTLY, COSTLY, COSTLY],    # 1 of 4 cheap -> costly next
        [CHEAP, CHEAP, COSTLY, COSTLY],     # 2 of 4 cheap (half) -> cheap next, its own costly order aside
        [COSTLY, COSTLY, COSTLY, COSTLY],
    ]
    assert play("diners_reciprocal", others) == [CHEAP, CHEAP, COSTLY, CHEAP]


@pytest.mark.parametrize("name", ["diners_always_costly", "diners_reciprocal"])
def test_agents_answer_nothing_for_another_game(name):
    game = load_game("connect_four")
    assert decide(name, "connect_four", game, game.new_initial_state(), 0) is None
