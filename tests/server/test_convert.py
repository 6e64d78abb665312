"""convert.to_struct (the Struct wire encoder) builds what Struct.update builds, for every view every game
produces and for random JSON-compatible data."""

from __future__ import annotations

import enum
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from google.protobuf import struct_pb2

import arena_engines
from arena_server.convert import to_struct


def _reference(data: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(data)
    return s


def _views(game_id: str) -> list[dict]:
    state = arena_engines.load_game(game_id).new_initial_state()
    rng = random.Random(7)
    views = []
    while not state.is_terminal():
        if not state.is_chance_node():
            views += [state.observation_dict(seat) for seat in range(state.num_players)]
        state.step_randomly(rng)
    return views + [state.result_details()]


@pytest.mark.parametrize("game_id", arena_engines.game_ids())
def test_every_observation_and_result_converts_as_struct_update_does(game_id):
    for view in _views(game_id):
        assert to_struct(view) == _reference(view)


def test_edge_values_convert_as_struct_update_does():
    class Level(enum.IntEnum):
        HIGH = 3

    data = {"empty list": [], "empty dict": {}, "none": None, "yes": True, "no": False, "zero": 0, "half": 0.5,
            "nested": [[], [1, [2, {"x": "y"}]]], "tuple": (1, "a"), "enum": Level.HIGH, "text": "é\n"}
    assert to_struct(data) == _reference(data)
    with pytest.raises(ValueError):
        to_struct({"object": object()})


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), _json, max_size=6))
def test_random_json_data_converts_as_struct_update_does(data):
    assert to_struct(data) == _reference(data)


@pytest.mark.parametrize("bad", [{1: "integer key"}, {"set": {1, 2}}, {"bytes": b"x"}, {"deep": [[{"x": object()}]]}])
def test_data_that_is_not_json_is_refused(bad):
    with pytest.raises(ValueError):
        to_struct(bad)
