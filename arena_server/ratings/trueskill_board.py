"""TrueSkill leaderboard over finished matches, in the order they ended.

Each match becomes one multiplayer TrueSkill update by rank among the distinct agents that played
it. An agent holding several seats (house agents filling a 10-seat game) is represented once,
by its best seat's rank. Matches with a single distinct agent (self-play) carry no comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import trueskill

from ..store import MatchRecord


@dataclass
class LeaderboardRow:
    agent_name: str
    rating: float
    lower: float
    upper: float
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rank: int = 0


def trueskill_leaderboard(matches: Iterable[MatchRecord], env: trueskill.TrueSkill | None = None) -> list[LeaderboardRow]:
    env = env or trueskill.TrueSkill(draw_probability=0.1)
    ratings: dict[str, trueskill.Rating] = {}
    rows: dict[str, LeaderboardRow] = {}
    for match in matches:
        best_rank: dict[str, int] = {}
        for player, rank in zip(match.players, match.result["ranks"]):
            name = player["agent_name"]
            best_rank[name] = min(rank, best_rank.get(name, rank))
        if len(best_rank) < 2:
            continue
        names = sorted(best_rank)
        groups = [(ratings.setdefault(n, env.create_rating()),) for n in names]
        updated = env.rate(groups, ranks=[best_rank[n] for n in names])
        top = min(best_rank.values())
        top_count = sum(r == top for r in best_rank.values())
        for name, (rating,) in zip(names, updated):
            ratings[name] = rating
            row = rows.setdefault(name, LeaderboardRow(name, 0.0, 0.0, 0.0))
            row.matches += 1
            if best_rank[name] != top:
                row.losses += 1
            elif top_count == 1:
                row.wins += 1
            else:
                row.draws += 1
    for name, row in rows.items():
        r = ratings[name]
        row.rating, row.lower, row.upper = r.mu, r.mu - 3 * r.sigma, r.mu + 3 * r.sigma
    ordered = sorted(rows.values(), key=lambda row: (-row.lower, row.agent_name))
    for position, row in enumerate(ordered, start=1):
        row.rank = position
    return ordered
