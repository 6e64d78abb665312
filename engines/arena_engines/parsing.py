"""Helpers shared by the games' text views: reading answers and checking seat numbers."""

from __future__ import annotations

import re


def last_match(pattern: re.Pattern, text: str) -> re.Match | None:
    """The last match of `pattern` in `text`, or None. Replies often restate the options before
    giving their answer, so the papers' parsers read the last occurrence."""
    found = None
    for found in pattern.finditer(text):
        pass
    return found


def check_seat(game_name: str, player: int, num_players: int = 2) -> None:
    """Refuses a seat number the game does not have."""
    if not 0 <= player < num_players:
        seats = " and ".join(map(str, range(num_players))) if num_players == 2 else f"0 to {num_players - 1}"
        raise ValueError(f"{game_name} has seats {seats}, not {player}")
