"""Game cores: one Cython module per game behind the common interface in core.pxd.

    game = load_game("tic_tac_toe")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])

Each game module exposes `SPEC` (a GameSpec) and `Game`, constructed with resolved parameters
and a player count, whose `new_initial_state()` returns a State.
"""

from __future__ import annotations

import importlib
from typing import Any

from .spec import GameSpec, Parameter, Preset

_MODULES = {
    "tic_tac_toe": "arena_engines.tic_tac_toe",
    "connect_four": "arena_engines.connect_four",
    "guess_two_thirds_average": "arena_engines.guess_two_thirds_average",
}


def game_ids() -> list[str]:
    return sorted(_MODULES)


def _module(game_id: str):
    try:
        return importlib.import_module(_MODULES[game_id])
    except KeyError:
        raise KeyError(f"unknown game {game_id!r} (known: {', '.join(game_ids())})") from None


def game_spec(game_id: str) -> GameSpec:
    return _module(game_id).SPEC


def load_game(game_id: str, parameters: dict[str, Any] | None = None, *, preset: str | None = None,
              num_players: int | None = None):
    """A Game with parameters resolved as defaults < preset < `parameters`."""
    module = _module(game_id)
    spec: GameSpec = module.SPEC
    values = spec.resolve(preset, parameters)
    players = num_players if num_players is not None else values.get("players", spec.min_players)
    if not spec.min_players <= players <= spec.max_players:
        raise ValueError(f"{game_id} takes {spec.min_players}-{spec.max_players} players, not {players}")
    return module.Game(values, players)


__all__ = ["GameSpec", "Parameter", "Preset", "game_ids", "game_spec", "load_game"]
