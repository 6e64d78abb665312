"""The Hanabi house agent, driven as the referee drives it (MatchStarted, then DecisionRequests built
from a real engine state), without a server."""

from __future__ import annotations

import random

from arena_engines import load_game
from arena_server.house import HOUSE_AGENTS

from .test_house import decide

GAME = "hanabi"
SIMPLE = "hanabi_simple"
DISCARD_0, DISCARD_1, PLAY_0, PLAY_1, REVEAL_RED, REVEAL_YELLOW = range(6)


def reveal_rank(rank: int) -> int:
    return 5 + rank


def card(name: str) -> int:
    return "RY".index(name[0]) * 5 + int(name[1]) - 1


def state_after(hand0, hand1, *moves, **parameters):
    """The small-structure game after dealing the hands and applying `moves` (card names are draws)."""
    game = load_game(GAME, parameters)
    state = game.new_initial_state()
    for move in [card(c) for c in list(hand0) + list(hand1)] + [card(m) if isinstance(m, str) else m for m in moves]:
        state.apply_action(move)
    return game, state


def simple(game, state) -> int:
    return decide(SIMPLE, GAME, game, state, state.current_player())


def test_registered_for_hanabi_only():
    description, factory = HOUSE_AGENTS[SIMPLE]
    assert "hanabi" in description and factory(0).games == frozenset({GAME})
    game = load_game("connect_four")
    assert decide(SIMPLE, "connect_four", game, game.new_initial_state(), 0) is None


def test_it_reveals_the_rank_of_a_playable_partner_card():
    game, state = state_after(["R3", "Y4"], ["Y2", "R1"])
    assert simple(game, state) == reveal_rank(1)                 # seat 1's R1 fits the empty Red firework


def test_it_plays_a_card_it_knows_to_be_playable():
    # Seat 1 learnt that its position 1 is a 1: with both fireworks empty any 1 fits.
    game, state = state_after(["R3", "Y4"], ["Y2", "R1"], reveal_rank(1))
    assert simple(game, state) == PLAY_1
    state.apply_action(PLAY_1)
    state.apply_action(card("Y3"))
    assert state.observation_dict(0)["fireworks"] == [1, 0]


def test_a_known_rank_is_not_enough_when_the_colours_fireworks_differ():
    # Red is at 1; seat 1 knows it holds a 2 but not its colour, so it does not play it, and seat 0 then
    # reveals the colour of that playable Red 2.
    game, state = state_after(["R1", "Y4"], ["Y3", "R2"], PLAY_0, "Y1", REVEAL_YELLOW)
    assert state.observation_dict(0)["fireworks"] == [1, 0]
    assert state.current_player() == 0
    assert simple(game, state) == reveal_rank(2)
    state.apply_action(reveal_rank(2))
    assert simple(game, state) != PLAY_1                          # seat 1 cannot tell Red 2 from Yellow 2
    state.apply_action(DISCARD_0)
    state.apply_action(card("Y5"))
    assert state.current_player() == 0
    assert simple(game, state) == REVEAL_RED                      # the rank is known: now the colour


def test_without_a_token_and_nothing_playable_it_discards_an_untouched_card():
    game, state = state_after(["R3", "Y4"], ["Y2", "R4"], REVEAL_RED, reveal_rank(4), REVEAL_YELLOW)
    assert state.observation_dict(0)["information_tokens"] == 0
    # Seat 1 knows: position 0 Yellow, position 1 Red; neither is known playable; none untouched.
    assert simple(game, state) == DISCARD_0


def test_with_every_token_and_nothing_useful_to_say_it_still_tells_something_new():
    # Nothing of seat 1's fits and seat 0 knows nothing of its own cards; discarding is not legal at 3.
    game, state = state_after(["R3", "Y4"], ["Y2", "R4"])
    assert simple(game, state) == reveal_rank(2)


def test_simple_teams_score_more_than_random_teams():
    def average(choose) -> float:
        game = load_game(GAME)
        total = 0.0
        for seed in range(40):
            rng = random.Random(seed)
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0])
                else:
                    state.apply_action(choose(game, state, rng))
            total += state.returns()[0]
        return total / 40

    simple_score = average(lambda game, state, rng: simple(game, state))
    random_score = average(lambda game, state, rng: rng.choice(state.legal_actions()))
    assert simple_score > random_score + 1, (simple_score, random_score)
