"""Battle Royale's house agents, driven as the referee drives them (MatchStarted, then DecisionRequests
built from a real engine state), without a server."""

from __future__ import annotations

import random
from collections import Counter

from arena_engines import load_game
from arena_engines.battle_royale import HIT, INTENTIONAL_MISS
from arena_server.convert import to_struct
from arena_server.house import HOUSE_AGENTS

from .test_house import decide, request, started

GAME = "battle_royale"
STRONGEST, RANDOM = "battle_royale_shoot_strongest", "battle_royale_random_target"


def test_both_agents_are_registered_for_battle_royale_only():
    for name in (STRONGEST, RANDOM):
        description, factory = HOUSE_AGENTS[name]
        assert description.startswith("Battle Royale") and factory(0).games == frozenset({GAME})


def test_shoot_strongest_takes_the_highest_living_hit_rate_other_than_its_own():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    assert decide(STRONGEST, GAME, game, state, 0) == 9
    state.apply_action(9)
    state.apply_action(HIT)                 # seat 9 is out
    assert decide(STRONGEST, GAME, game, state, 1) == 8
    for seat in range(1, 8):
        state.apply_action(INTENTIONAL_MISS)
    assert state.current_player() == 8
    assert decide(STRONGEST, GAME, game, state, 8) == 7        # the strongest shoots the second strongest


def test_shoot_strongest_reads_the_hit_rates_from_the_observation():
    # The engine's rates rise with the seat; a view whose rates do not shows the agent reads them.
    game = load_game(GAME, {"players": 4})
    state = game.new_initial_state()
    view = state.observation_dict(0)
    view["hit_rates"] = [50, 90, 40, 60]
    sent = request(state, 0)
    sent.observation.data.CopyFrom(to_struct(view))
    policy = HOUSE_AGENTS[STRONGEST][1](0)
    policy.start(started(GAME, game, 0).match_started)
    assert policy.choose(sent) == 1


def test_random_target_shoots_every_living_opponent_and_never_misses():
    game = load_game(GAME, preset="gamabench")
    state = game.new_initial_state()
    state.apply_action(4)
    state.apply_action(HIT)                 # seat 0 eliminates seat 4; seat 1 shoots
    choices = Counter(decide(RANDOM, GAME, game, state, 1, seed=seed) for seed in range(200))
    assert set(choices) == {0, 2, 3, 5, 6, 7, 8, 9}
    assert min(choices.values()) >= 10


def test_the_agents_play_whole_games_with_legal_moves():
    game = load_game(GAME, {"players": 4})
    for name in (STRONGEST, RANDOM):
        rng = random.Random(1)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            seat = state.current_player()
            action = decide(name, GAME, game, state, seat, seed=state.move_number)
            assert action in state.legal_actions(seat) and action < game.num_players
            state.apply_action(action)
        if name == STRONGEST:
            assert state.result_details()["gamabench"]["score"] == 100.0
