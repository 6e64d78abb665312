"""TrueSkill leaderboard over finished matches, in the order they ended.

Each match becomes one TrueSkill update by rank among its sides (`outcomes.sides`): two players,
several players ranked by returns, or teams (the distinct agents of a team form one rating group,
e.g. Undercover's civilians against the undercover). Equal ranks are draws. An agent holding
several seats (house agents filling a 10-seat game) is represented once, by its best seat's rank;
a match with a single distinct agent (self-play) carries no comparison.

- `TrueSkillBoard` updates live, one match at a time; `trueskill_leaderboard` replays a log.
- Settings: the `trueskill` library's defaults (μ 25, σ 25/3, β 25/6, τ 25/300, draw 0.10),
  ranked by the conservative μ − 3σ. Preset `llmarena` (LLMArena's code): the same constants,
  winners (the sides with the largest return) against everyone else, reported and ranked by μ.
- Order-robust mode (`orders=k`) for frozen agents, whose strength does not change: the log is
  replayed in k seeded random orders and μ, σ are averaged per agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import trueskill

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally
from .outcomes import sides

__all__ = ["LeaderboardRow", "TRUESKILL_PRESETS", "TrueSkillBoard", "TrueSkillSettings", "trueskill_leaderboard"]


@dataclass(frozen=True)
class TrueSkillSettings:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10
    rank_by: str = "conservative"       # "conservative" (μ − 3σ) | "mu"
    winners_only: bool = False          # LLMArena: the best-ranked sides against all the others

    def env(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                   draw_probability=self.draw_probability)


TRUESKILL_PRESETS = {
    "default": TrueSkillSettings(),
    "llmarena": TrueSkillSettings(rank_by="mu", winners_only=True),
}


class TrueSkillBoard:
    """Live TrueSkill ratings: `update(match)` as each match ends, `rows()` at any time."""

    def __init__(self, settings: TrueSkillSettings | None = None, env: trueskill.TrueSkill | None = None,
                 pool: Iterable[str] | None = None):
        self.settings = settings or TrueSkillSettings()
        self.env = env or self.settings.env()
        self.pool = set(pool) if pool is not None else None
        self.ratings: dict[str, trueskill.Rating] = {}
        self._matches: list[MatchRecord] = []

    def rating(self, name: str) -> trueskill.Rating:
        return self.ratings.get(name) or self.env.create_rating()

    def update(self, match: MatchRecord) -> bool:
        """Applies one finished match; False when it carries no comparison."""
        ss = sides(match, self.pool)
        if not ss:
            return False
        ranks = [s.rank for s in ss]
        if self.settings.winners_only:
            top = min(ranks)
            ranks = [0 if r == top else 1 for r in ranks]
        groups = [tuple(self.ratings.setdefault(n, self.env.create_rating()) for n in s.agents) for s in ss]
        updated = self.env.rate(groups, ranks=ranks)
        for side, group in zip(ss, updated):
            for name, rating in zip(side.agents, group):
                self.ratings[name] = rating
        self._matches.append(match)
        return True

    def rows(self) -> list[LeaderboardRow]:
        rows: dict[str, LeaderboardRow] = {}
        tally(self._matches, rows, self.pool)
        for name, row in rows.items():
            r = self.ratings[name]
            row.rating, row.lower, row.upper = r.mu, r.mu - 3 * r.sigma, r.mu + 3 * r.sigma
            row.extra = {"mu": r.mu, "sigma": r.sigma}
        return _ordered(list(rows.values()), self.settings)


def _ordered(rows: list[LeaderboardRow], settings: TrueSkillSettings) -> list[LeaderboardRow]:
    if settings.rank_by == "mu":
        key = lambda row: (-row.rating, row.agent_name)  # noqa: E731
    else:
        key = lambda row: (-row.lower, row.agent_name)  # noqa: E731
    return rank_by_position(sorted(rows, key=key))


def trueskill_leaderboard(matches: Iterable[MatchRecord], env: trueskill.TrueSkill | None = None, *,
                          settings: TrueSkillSettings | None = None, orders: int = 0, seed: int = 0,
                          pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    """Ratings after replaying `matches` in order (`orders=0`), or averaged over `orders` seeded
    random orders. Rating = μ, interval μ ± 3σ (σ averaged over the orders)."""
    settings = settings or TrueSkillSettings()
    matches: Sequence[MatchRecord] = list(matches)
    if orders <= 0:
        board = TrueSkillBoard(settings, env, pool)
        for match in matches:
            board.update(match)
        return board.rows()
    rng = np.random.default_rng(seed)
    mus: dict[str, list[float]] = {}
    sigmas: dict[str, list[float]] = {}
    board = None
    for _ in range(orders):
        board = TrueSkillBoard(settings, env, pool)
        for k in rng.permutation(len(matches)):
            board.update(matches[k])
        for name, r in board.ratings.items():
            mus.setdefault(name, []).append(r.mu)
            sigmas.setdefault(name, []).append(r.sigma)
    rows: dict[str, LeaderboardRow] = {}
    tally(matches, rows, pool)
    for name, row in rows.items():
        mu, sigma = float(np.mean(mus[name])), float(np.mean(sigmas[name]))
        row.rating, row.lower, row.upper = mu, mu - 3 * sigma, mu + 3 * sigma
        row.extra = {"mu": mu, "sigma": sigma, "mu_sd_over_orders": float(np.std(mus[name]))}
    return _ordered(list(rows.values()), settings)
