"""Every game's action-text parser, fuzzed: any text either parses to an action id the game can
render (the referee then checks legality) or raises ActionParseError with feedback, and parsing
never changes the state. Texts up to 4000 characters, the largest any game accepts, keep regular
expressions honest about their worst case."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena_engines
from arena_engines.core import ActionParseError

# Pieces of the answer formats the games accept, so that fuzzed texts come near real answers.
KEYWORDS = ["Proposal:", "Agree", "Liar", "bid", "Bid:", "chosen_number", '{"bid": ', '{"chosen_number": ', "pile:",
            "take:", "X:", "O:", "row", "column", "C", "R", "player_0:", "player_1:", "dices", "value", "$", "roll",
            "stop", "cooperate", "defect", "Bet", "Pass", "->", "*", "peppers", "cherries", "utterance", "e+9", "-0"]
PUNCTUATION = list("<>[](){}:,;'\"\n\t -*./_=|")


@cache
def decision_points(game_id: str) -> tuple:
    """(state, seat) pairs from a few seeded random playouts: the first decisions, the middle, the last."""
    spec = arena_engines.game_spec(game_id)
    points = []
    for seed in range(3):
        rng = random.Random(seed)
        state = arena_engines.load_game(game_id, num_players=spec.min_players).new_initial_state()
        while not state.is_terminal():
            points.extend((state.clone(), seat) for seat in state.current_players())
            state.step_randomly(rng)
    step = max(1, len(points) // 8)
    return tuple(points[::step][:8] + points[-1:])


@cache
def vocabulary(game_id: str) -> tuple[str, ...]:
    words = set(KEYWORDS)
    for state, seat in decision_points(game_id):
        words.update(state.action_to_string(seat, a) for a in state.legal_actions(seat)[:50])
    return tuple(sorted(words))


def texts(game_id: str):
    fragment = st.one_of(st.sampled_from(vocabulary(game_id)), st.sampled_from(PUNCTUATION),
                         st.integers(-10**12, 10**12).map(str), st.floats(allow_nan=True).map(str),
                         st.text(max_size=12))
    return st.one_of(
        st.text(max_size=200),
        st.lists(fragment, max_size=12).map("".join),
        st.lists(fragment, min_size=1, max_size=12).map("".join).map(lambda t: (t * (4000 // len(t) + 1))[:4000]
                                                                     if t else t),
    )


@pytest.mark.parametrize("game_id", arena_engines.game_ids())
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_text_parses_to_a_renderable_action_or_raises_action_parse_error(game_id, data):
    points = decision_points(game_id)
    state, seat = points[data.draw(st.integers(0, len(points) - 1), label="decision point")]
    text = data.draw(texts(game_id), label="text")
    before = (state.observation_string(seat), state.legal_actions(seat), state.history())
    try:
        action = state.parse_action(seat, text)
    except ActionParseError as e:
        assert str(e)                   # the message is the agent's feedback
    else:
        assert isinstance(action, int) and action >= 0
        assert state.action_to_string(seat, action)       # the referee names a refused move with it
    assert (state.observation_string(seat), state.legal_actions(seat), state.history()) == before


@pytest.mark.parametrize("game_id", arena_engines.game_ids())
def test_every_legal_actions_own_text_parses_back_to_it(game_id):
    for state, seat in decision_points(game_id):
        for action in state.legal_actions(seat)[:200]:
            assert state.parse_action(seat, state.action_to_string(seat, action)) == action
