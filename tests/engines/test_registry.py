"""The registry: game ids, specs and presets, and how load_game resolves parameters and players."""

from __future__ import annotations

import importlib

import pytest

from arena_engines import game_ids, game_spec, load_game
from arena_engines.core import State


def test_the_three_games_are_registered_with_matching_specs():
    mine = ["connect_four", "guess_two_thirds_average", "tic_tac_toe"]
    assert set(mine) <= set(game_ids())
    for game_id in mine:
        spec = game_spec(game_id)
        assert spec.game_id == game_id
        module = importlib.import_module(f"arena_engines.{game_id}")
        assert module.SPEC is spec
        assert "Ambiguit" in module.__doc__ and "Preset" in module.__doc__


@pytest.mark.parametrize("game_id,presets", [
    ("tic_tac_toe", ["llmarena", "gtbench"]),
    ("connect_four", ["llmarena", "gtbench"]),
    ("guess_two_thirds_average", ["gamabench"]),
])
def test_presets_exist_with_descriptions(game_id, presets):
    spec = game_spec(game_id)
    assert [p.name for p in spec.presets] == presets
    assert all(p.description for p in spec.presets)
    for preset in presets:
        game = load_game(game_id, preset=preset)
        assert isinstance(game.new_initial_state(), State)
        assert game.spec is spec


def test_num_players_sets_the_players_parameter_of_variable_player_games():
    game = load_game("guess_two_thirds_average", num_players=3)
    assert game.num_players == 3 and game.parameters["players"] == 3
    assert game.new_initial_state().num_players == 3
    # An explicit count overrides both the preset and a "players" parameter.
    game = load_game("guess_two_thirds_average", {"players": 5}, preset="gamabench", num_players=4)
    assert game.num_players == 4 and game.parameters["players"] == 4
    # Without an explicit count the parameter decides.
    assert load_game("guess_two_thirds_average", {"players": 5}).num_players == 5
    assert load_game("guess_two_thirds_average").num_players == 10


def test_player_counts_outside_the_spec_are_refused():
    with pytest.raises(ValueError):
        load_game("tic_tac_toe", num_players=3)
    with pytest.raises(ValueError):
        load_game("guess_two_thirds_average", num_players=1)


def test_unknown_games_parameters_and_presets_are_refused():
    with pytest.raises(KeyError):
        load_game("chess")
    with pytest.raises(KeyError):
        load_game("tic_tac_toe", {"size": 4})
    with pytest.raises(KeyError):
        load_game("connect_four", preset="gamabench")


def test_parameters_from_json_floats_keep_integer_types():
    game = load_game("guess_two_thirds_average", {"rounds": 5.0, "max_value": 50.0}, num_players=2)
    assert game.parameters["rounds"] == 5 and isinstance(game.parameters["rounds"], int)
    assert game.new_initial_state().legal_actions(0) == list(range(51))
