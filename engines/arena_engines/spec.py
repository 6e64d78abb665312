"""Static description of a game (OpenSpiel's GameType + GameInfo in one record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    name: str
    default: Any
    description: str
    # A secret parameter is part of the hidden setup (e.g. which seat a suite made the undercover): the
    # server leaves it out of what agents and spectators see of a match until the match has ended.
    secret: bool = False


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    values: dict[str, Any]


@dataclass(frozen=True)
class GameSpec:
    game_id: str
    display_name: str
    rules_version: str
    min_players: int
    max_players: int
    dynamics: str            # "sequential" | "simultaneous"
    chance: str              # "deterministic" | "stochastic"
    information: str         # "perfect" | "imperfect"
    utility: str             # "zero_sum" | "constant_sum" | "general_sum" | "identical"
    min_utility: float
    max_utility: float
    max_game_length: int
    description: str
    parameters: tuple[Parameter, ...] = ()
    presets: tuple[Preset, ...] = ()
    accepts_text_actions: bool = False
    dialogue: bool = False   # some decisions carry a message other seats read (core.pyx, "Dialogue")

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.parameters}

    def public(self, values: dict[str, Any]) -> dict[str, Any]:
        """`values` without the secret parameters (what a running match shows)."""
        secret = {p.name for p in self.parameters if p.secret}
        return {k: v for k, v in values.items() if k not in secret} if secret else values

    def preset(self, name: str) -> Preset:
        for p in self.presets:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.presets) or "none"
        raise KeyError(f"game {self.game_id!r} has no preset {name!r} (known: {known})")

    def resolve(self, preset: str | None = None, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults, then the preset's values, then explicit overrides; unknown names refused."""
        values = self.defaults()
        if preset:
            values.update(self.preset(preset).values)
        for name, value in (overrides or {}).items():
            if name not in values:
                known = ", ".join(sorted(values)) or "none"
                raise KeyError(f"game {self.game_id!r} has no parameter {name!r} (known: {known})")
            default = values[name]
            if isinstance(default, bool) and not isinstance(value, bool):
                raise ValueError(f"parameter {name!r} of {self.game_id!r} is true or false, not {value!r}")
            if isinstance(default, str) and not isinstance(value, str):
                raise ValueError(f"parameter {name!r} of {self.game_id!r} is a string, not {value!r}")
            # Numbers arriving through JSON or a protobuf Struct are floats; keep the default's type.
            if isinstance(default, int) and not isinstance(default, bool) and isinstance(value, float) \
                    and value.is_integer():
                value = int(value)
            values[name] = value
        return values


def checked_int(values: dict[str, Any], name: str, low: int, high: int) -> int:
    """values[name] as an integer in [low, high]; a ValueError naming the parameter otherwise.
    Games call it on their resolved parameters before sizing C arrays from them."""
    value = values[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"parameter {name!r} must be an integer in {low}..{high}, not {value!r}")
    return value


def checked_choice(values: dict[str, Any], name: str, choices: tuple) -> int:
    """The index of values[name] in `choices`; a ValueError naming the parameter otherwise."""
    value = values[name]
    if value not in choices:
        raise ValueError(f"parameter {name!r} must be one of {', '.join(choices)}, not {value!r}")
    return choices.index(value)


class GameBase:
    """What every game's `Game` shares: its spec (a class attribute), its resolved parameters and
    its seat count. The count is checked against the spec here, so the spec alone states it; a game
    with a "players" parameter gets the count there too. Subclasses validate `self.parameters`
    after calling this."""

    spec: GameSpec

    def __init__(self, parameters: dict[str, Any], num_players: int):
        spec = self.spec
        if isinstance(num_players, bool) or not isinstance(num_players, int) \
                or not spec.min_players <= num_players <= spec.max_players:
            counts = (str(spec.min_players) if spec.min_players == spec.max_players
                      else f"{spec.min_players}-{spec.max_players}")
            raise ValueError(f"{spec.game_id} takes {counts} players, not {num_players}")
        self.parameters = dict(parameters)
        if "players" in self.parameters:
            self.parameters["players"] = num_players
        self.num_players = num_players

    def seat_sides(self) -> list[int]:
        """The side (team) of each seat, numbered from 0 in order of first appearance: one agent holds
        every seat of a side (GameBench's team games: Sea Battle's three ships a side, Codenames'
        spymaster and guesser). By default every seat is its own side."""
        return list(range(self.num_players))

    def replay(self, history):
        """The state after the (seat, action) pairs of `history` from the start, each checked to be
        played in turn: state_from_view for games whose views carry the whole history."""
        state = self.new_initial_state()
        for seat, action in history:
            if seat != state.current_player():
                raise ValueError(f"history out of turn: seat {seat} moved when seat "
                                 f"{state.current_player()} was to move")
            state.apply_action(action)
        return state
