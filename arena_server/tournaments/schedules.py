"""Tournament schedules: which agents meet, and in which seats.

Round robin and gauntlet rotate seats cyclically, so within each group every agent holds every seat
equally often (GTBench: each participant moves first in half of a pairing's matches). Self-play
seats one agent in every seat of every match (GAMA-Bench's ten copies of one model). Sampled draws
each match's opponents and seats at random (LLMArena), as many matches as the tournament plans.
"""

from __future__ import annotations

import random
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


def self_play(agents: list[str], players_per_match: int, games_per_pairing: int) -> list[list[str]]:
    """`games_per_pairing` matches, each with the one agent in all `players_per_match` seats."""
    if len(agents) != 1:
        raise ValueError(f"self-play takes exactly one agent, not {len(agents)}")
    if players_per_match < 1:
        raise ValueError("self-play matches need at least one seat")
    return [[agents[0]] * players_per_match for _ in range(games_per_pairing)]


def sampled(agents: list[str], players_per_match: int, matches: int, seed: int) -> list[list[str]]:
    """The first agent in each of `matches` matches, every other seat drawn uniformly from the
    others (with replacement: one opponent may hold several seats, as Undercover's four civilians),
    in uniformly random seats (LLMArena's random pairing and first mover). Match i depends only on
    (seed, i), so extending the schedule keeps the matches already planned."""
    if len(set(agents)) != len(agents) or len(agents) < 2:
        raise ValueError("a sampled schedule needs the agent and at least one distinct opponent")
    out = []
    for index in range(matches):
        rng = random.Random(f"{seed}:{index}")
        seating = [agents[0], *rng.choices(agents[1:], k=players_per_match - 1)]
        rng.shuffle(seating)
        out.append(seating)
    return out


SCHEDULES = {"round_robin": round_robin, "gauntlet": gauntlet, "self_play": self_play, "sampled": sampled}
