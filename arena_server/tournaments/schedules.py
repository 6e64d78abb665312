"""Tournament schedules: which agents meet, and in which seats.

Both schedules rotate seats cyclically, so within each group every agent holds every seat
equally often (GTBench: each participant moves first in half of a pairing's matches).
"""

from __future__ import annotations

from itertools import combinations


def _rotations(group: tuple[str, ...], games_per_pairing: int) -> list[list[str]]:
    return [list(group[shift:] + group[:shift]) for _ in range(games_per_pairing) for shift in range(len(group))]


def _check(agents: list[str], players_per_match: int) -> None:
    if len(set(agents)) != len(agents):
        raise ValueError("tournament agents must be distinct")
    if not 2 <= players_per_match <= len(agents):
        raise ValueError(f"{len(agents)} agents cannot fill matches of {players_per_match} seats")


def round_robin(agents: list[str], players_per_match: int, games_per_pairing: int) -> list[list[str]]:
    """Every group of `players_per_match` agents meets `games_per_pairing` times in each rotation."""
    _check(agents, players_per_match)
    return [s for group in combinations(agents, players_per_match) for s in _rotations(group, games_per_pairing)]


def gauntlet(agents: list[str], players_per_match: int, games_per_pairing: int) -> list[list[str]]:
    """The first agent (the challenger) meets each group of the others (its opponents), and the
    opponents never meet without it: how GTBench and MAgIC evaluate one agent against fixed ones."""
    _check(agents, players_per_match)
    challenger, opponents = agents[0], agents[1:]
    return [s for others in combinations(opponents, players_per_match - 1)
            for s in _rotations((challenger, *others), games_per_pairing)]


SCHEDULES = {"round_robin": round_robin, "gauntlet": gauntlet}
