"""Game cores: one Cython module per game behind the common interface in core.pxd.

    game = load_game("tic_tac_toe")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])

A game module is any module of this package that exports `SPEC` (a GameSpec, whose game_id is the
module's name) and `Game`, constructed with resolved parameters and a player count, whose
`new_initial_state()` returns a State. A Game whose return bounds depend on its parameters also
has `utility_bounds() -> (min, max)`; otherwise the spec's bounds hold. A team game's Game says
which seats one agent holds together with `seat_sides()` (spec.GameBase). Adding a game is adding
its file.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from .spec import GameSpec, Parameter, Preset

_NOT_GAMES = {"core", "spec", "playthrough"}


@cache
def _games() -> dict[str, Any]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_GAMES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, GameSpec) and hasattr(module, "Game"):
            found[spec.game_id] = module
    return found


def game_ids() -> list[str]:
    return sorted(_games())


def game_module(game_id: str):
    """The module that implements `game_id` (its SPEC, Game and module-level helpers)."""
    try:
        return _games()[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r} (known: {', '.join(game_ids())})") from None


def game_spec(game_id: str) -> GameSpec:
    return game_module(game_id).SPEC


def load_game(game_id: str, parameters: dict[str, Any] | None = None, *, preset: str | None = None,
              num_players: int | None = None):
    """A Game with parameters resolved as defaults < preset < `parameters`."""
    module = game_module(game_id)
    spec: GameSpec = module.SPEC
    values = spec.resolve(preset, parameters)
    # Variable-player games carry the count as a parameter; an explicit count wins. The Game checks
    # it against the spec.
    players = num_players if num_players is not None else values.get("players", spec.min_players)
    return module.Game(values, players)


__all__ = ["GameSpec", "Parameter", "Preset", "game_ids", "game_module", "game_spec", "load_game"]
