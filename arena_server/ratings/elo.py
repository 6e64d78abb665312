"""Elo, updated match by match in the order matches ended, with a bootstrap interval.

For each pairwise comparison of a match (`outcomes.comparisons`: score S of a against b, weight w),
with ratings taken from before the match:
    E_a = 1 / (1 + 10^((R_b − R_a) / scale)),   R_a += K·w·(S − E_a),   R_b −= K·w·(S − E_a).
Two players: one comparison of weight 1 (the textbook update). k > 2 players ranked by returns:
every pair with weight 1/(k − 1). Teams: the one comparison of the match is spread over the
cross-team agent pairs. Draws count as S = ½ (or are skipped with `ties="drop"`).

Rating: the Elo of the log in end order (the live rating). Interval, as Chatbot Arena computes
it for its online Elo: `resamples` bootstrap resamples of the log (as many matches as it holds,
drawn with replacement, so in random order), each replayed from the initial ratings with the
same update; the interval is the central `level` percentile range (default 95 %, Chatbot
Arena's) of an agent's final rating over the resamples, and `extra["bootstrap_median"]` its
median (the number Chatbot Arena reports). Elo depends on order, so the end-order rating can
lie outside its interval when recent results differ from the whole log; the interval says how
much the rating owes to which matches were played and in what order. `resamples=0`: no
interval (lower = upper = rating). Rows are ranked by rating.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

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
    resamples: int = 1000       # bootstrap resamples of the interval; 0: no interval
    level: float = 0.95         # central percentile range of the interval
    seed: int = 0               # seed of the bootstrap

    def validate(self) -> None:
        if self.ties not in TIES:
            raise ValueError(f"unknown tie policy {self.ties!r} (known: {', '.join(TIES)})")
        if self.resamples < 0:
            raise ValueError("resamples must be >= 0")
        if not 0 < self.level < 1:
            raise ValueError("confidence level must be in (0, 1)")


def expected_score(r_a: float, r_b: float, scale: float = 400.0) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / scale))


class EloBoard:
    """Live Elo ratings: `update(match)` as each match ends, `rows()` at any time."""

    def __init__(self, options: EloOptions | None = None, pool: Iterable[str] | None = None):
        self.options = options or EloOptions()
        self.options.validate()
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


def bootstrap_elo(matches: Sequence[MatchRecord], options: EloOptions | None = None, *,
                  pool: Iterable[str] | None = None) -> tuple[list[str], np.ndarray]:
    """(agents, (resamples, n) final Elo ratings) of `options.resamples` bootstrap resamples of the
    log: as many matches as it holds, drawn uniformly with replacement one position at a time
    (the k-th match of every resample is drawn at step k), each resample replayed from the initial
    ratings. All resamples advance together, one match per step (NumPy over the resamples)."""
    o = options or EloOptions()
    pool = set(pool) if pool is not None else None
    per_match = [cs for cs in (comparisons(m, o.scoring, pool) for m in matches) if cs]
    agents = sorted({name for cs in per_match for c in cs for name in (c.a, c.b)})
    b, m, n = o.resamples, len(per_match), len(agents)
    ratings = np.full((b, n), float(o.initial))
    if not m or not b:
        return agents, ratings
    index = {a: i for i, a in enumerate(agents)}
    width = max(len(cs) for cs in per_match)
    ia, ib = np.zeros((m, width), dtype=np.int64), np.zeros((m, width), dtype=np.int64)
    score, weight = np.zeros((m, width)), np.zeros((m, width))      # padding: weight 0
    for k, cs in enumerate(per_match):
        for c_k, c in enumerate(cs):
            ia[k, c_k], ib[k, c_k], score[k, c_k] = index[c.a], index[c.b], c.score
            weight[k, c_k] = 0.0 if (c.score == 0.5 and o.ties == "drop") else c.weight
    rng = np.random.default_rng(o.seed)
    rows = np.arange(b)
    for _ in range(m):
        drawn = rng.integers(0, m, size=b)
        a, bb = ia[drawn], ib[drawn]                                   # (b, width)
        ra, rb = ratings[rows[:, None], a], ratings[rows[:, None], bb]  # ratings before the match
        change = o.k_factor * weight[drawn] * (score[drawn] - 1.0 / (1.0 + 10.0 ** ((rb - ra) / o.scale)))
        np.add.at(ratings, (np.repeat(rows, width), a.ravel()), change.ravel())
        np.add.at(ratings, (np.repeat(rows, width), bb.ravel()), -change.ravel())
    return agents, ratings


def elo_leaderboard(matches: Iterable[MatchRecord], options: EloOptions | None = None, *,
                    pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    """Elo rows: the end-order rating, and with `options.resamples` > 0 the bootstrap interval."""
    options = options or EloOptions()
    options.validate()
    matches = list(matches)
    board = EloBoard(options, pool)
    for match in matches:
        board.update(match)
    rows = board.rows()
    if options.resamples:
        agents, samples = bootstrap_elo(matches, options, pool=pool)
        q = 100 * (1 - options.level) / 2
        lower, median, upper = np.percentile(samples, [q, 50, 100 - q], axis=0)
        column = {a: i for i, a in enumerate(agents)}
        for row in rows:
            if row.agent_name in column:
                i = column[row.agent_name]
                row.lower, row.upper = float(lower[i]), float(upper[i])
                row.extra = {"bootstrap_median": float(median[i])}
    return rows
