"""Elo, updated match by match in the order matches ended.

For each pairwise comparison of a match (`outcomes.comparisons`: score S of a against b, weight w),
with ratings taken from before the match:
    E_a = 1 / (1 + 10^((R_b − R_a) / scale)),   R_a += K·w·(S − E_a),   R_b −= K·w·(S − E_a).
Two players: one comparison of weight 1 (the textbook update). k > 2 players ranked by returns:
every pair with weight 1/(k − 1). Teams: the one comparison of the match is spread over the
cross-team agent pairs. Draws count as S = ½ (or are skipped with `ties="drop"`). Elo gives no
interval: lower = upper = rating, and rows are ranked by position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally
from .outcomes import TIES, comparisons


@dataclass
class EloOptions:
    k_factor: float = 32.0
    initial: float = 1500.0
    scale: float = 400.0
    ties: str = "half"          # "half" | "drop"
    scoring: str = "rank"       # "rank" | "share"


def expected_score(r_a: float, r_b: float, scale: float = 400.0) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / scale))


class EloBoard:
    """Live Elo ratings: `update(match)` as each match ends, `rows()` at any time."""

    def __init__(self, options: EloOptions | None = None, pool: Iterable[str] | None = None):
        self.options = options or EloOptions()
        if self.options.ties not in TIES:
            raise ValueError(f"unknown tie policy {self.options.ties!r} (known: {', '.join(TIES)})")
        self.pool = set(pool) if pool is not None else None
        self.ratings: dict[str, float] = {}
        self._matches: list[MatchRecord] = []

    def rating(self, name: str) -> float:
        return self.ratings.get(name, self.options.initial)

    def update(self, match: MatchRecord) -> bool:
        """Applies one finished match; False when it carries no comparison."""
        o = self.options
        cs = comparisons(match, o.scoring, self.pool)
        if not cs:
            return False
        delta: dict[str, float] = {}
        for c in cs:
            delta.setdefault(c.a, 0.0)
            delta.setdefault(c.b, 0.0)
            if c.score == 0.5 and o.ties == "drop":
                continue
            change = o.k_factor * c.weight * (c.score - expected_score(self.rating(c.a), self.rating(c.b), o.scale))
            delta[c.a] += change
            delta[c.b] -= change
        for name, d in delta.items():
            self.ratings[name] = self.rating(name) + d
        self._matches.append(match)
        return True

    def rows(self) -> list[LeaderboardRow]:
        rows: dict[str, LeaderboardRow] = {}
        tally(self._matches, rows, self.pool)
        for name, row in rows.items():
            row.rating = row.lower = row.upper = self.rating(name)
        return rank_by_position(sorted(rows.values(), key=lambda r: (-r.rating, r.agent_name)))


def elo_leaderboard(matches: Iterable[MatchRecord], options: EloOptions | None = None, *,
                    pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    board = EloBoard(options, pool)
    for match in matches:
        board.update(match)
    return board.rows()
