"""Round-robin schedule with seat rotation."""

from __future__ import annotations

from itertools import combinations


def round_robin(agents: list[str], players_per_match: int, games_per_pairing: int) -> list[list[str]]:
    """Seatings (agent name per seat) in which every group of `players_per_match` agents meets
    `games_per_pairing` times in each cyclic seat rotation, so each agent holds each seat equally
    often within its group."""
    if len(set(agents)) != len(agents):
        raise ValueError("tournament agents must be distinct")
    if not 2 <= players_per_match <= len(agents):
        raise ValueError(f"{len(agents)} agents cannot fill matches of {players_per_match} seats")
    seatings = []
    for group in combinations(agents, players_per_match):
        for _ in range(games_per_pairing):
            for shift in range(players_per_match):
                seatings.append(list(group[shift:] + group[:shift]))
    return seatings
