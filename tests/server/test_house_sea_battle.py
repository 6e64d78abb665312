"""The Sea Battle house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built
from a real engine state), without a server: it fires at an enemy in range, keeps off the rocks, closes
in, spares its teammates, always answers a legal order, and beats random play."""

from __future__ import annotations

import asyncio
import random
from functools import partial

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS, HouseSeat

from . import test_house
from .test_house import request, started

GAME = "sea_battle"
NAME = "sea_battle_gunner"
HEADINGS = ["East", "North", "West", "South"]
SIZE = 10


decide = partial(test_house.decide, NAME, GAME)


def setup(ships):
    """A 10 x 10 board without interior rocks; `ships` lists ((x, y), facing) for A, B, C, X, Y, Z."""
    game = load_game(GAME, {"board_size": SIZE, "interior_rocks": 0}, preset="gamebench")
    state = game.new_initial_state()
    for (x, y), facing in ships:
        state.apply_action(y * SIZE + x)
        state.apply_action(HEADINGS.index(facing))
    return game, state


# B, C and Y, Z sit near the corners, out of everyone's way: their shots hit nothing.
CORNERS = [((1, 8), "North"), ((1, 1), "South"), ((8, 1), "North"), ((8, 2), "North")]


def test_registered_for_sea_battle_only():
    description, factory = HOUSE_AGENTS[NAME]
    assert "Sea Battle" in description
    assert factory(0).games == frozenset({GAME})


def test_fires_at_an_enemy_in_range():
    # A at (3, 5) facing North; X two squares to its east: only a shot to the right reaches it.
    game, state = setup([((3, 5), "North"), CORNERS[0], CORNERS[1], ((5, 5), "South"), CORNERS[2], CORNERS[3]])
    for seed in range(3):
        choice = decide(game, state, 0, seed)
        assert state.action_to_string(0, choice).endswith("shoot right")
        after = state.clone()
        after.apply_actions([choice, 7, 7, 6, 7, 7])
        assert after.observation_dict(0)["ships"][3]["damage"] == 2


def test_keeps_off_the_rocks_and_closes_in():
    # A at (1, 5) facing North, X at (7, 7): "move left" ends on the western rocks, "move right" (to (2, 6))
    # comes nearest to X.
    game, state = setup([((1, 5), "North"), CORNERS[0], CORNERS[1], ((7, 7), "West"), CORNERS[2], CORNERS[3]])
    for seed in range(3):
        choice = decide(game, state, 0, seed)
        assert state.action_to_string(0, choice).startswith("move right then")
        after = state.clone()
        after.apply_actions([choice, 7, 7, 7, 7, 7])
        assert after.observation_dict(0)["ships"][0]["position"] == [2, 6]
        assert after.observation_dict(0)["ships"][0]["damage"] == 0


def test_does_not_fire_at_a_teammate():
    # A at (4, 5) facing North between X two squares west and B two squares east.
    game, state = setup([((4, 5), "North"), ((6, 5), "North"), CORNERS[1], ((2, 5), "North"), CORNERS[2], CORNERS[3]])
    for seed in range(4):
        choice = decide(game, state, 0, seed)
        after = state.clone()
        after.apply_actions([choice, 6, 7, 6, 7, 7])        # B and X fire away from the others
        assert after.observation_dict(0)["ships"][1]["damage"] == 0, state.action_to_string(0, choice)


def test_always_answers_a_legal_order_and_beats_random_play():
    game = load_game(GAME, {"board_size": 12, "interior_rocks": 6}, preset="gamebench")
    won = 0.0
    for match in range(8):
        rng = random.Random(match)
        house_side = match % 2
        seats = {seat: HouseSeat(NAME, 10 * match + seat) for seat in range(6) if seat // 3 == house_side}
        for seat, house in seats.items():
            house.notify(started(GAME, game, seat))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.step_randomly(rng)
                continue
            joint = [0] * 6
            for seat in state.current_players():
                if seat in seats:
                    joint[seat] = asyncio.run(seats[seat].ask(request(state, seat), timeout=30)).action_id
                    assert joint[seat] in state.legal_actions(seat)
                else:
                    joint[seat] = rng.choice(state.legal_actions(seat))
            state.apply_actions(joint)
        won += state.returns()[3 * house_side]
    assert won >= 7, won
