"""Leaderboard rows shared by every rating method, the per-agent win/draw/loss tally, and the
provisional mark.

*Provisional*: a row whose agent has fewer than `PROVISIONAL_MATCHES` (10) matches with a
comparison in the selection (matches it played against at least one other agent of the pool).
The threshold is on matches and the same for every method, so the mark means the same thing on
every board: below 10 matches each method's number still owes much to where it started (the
Bradley–Terry prior's 2 pseudo-comparisons against fewer than 10 real ones; Elo's and TrueSkill's
initial rating) or averages fewer than 10 results (NRA, suite scores). Intervals say how
uncertain a number is; the mark says it is early days, also for methods without an interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..store import MatchRecord
from .outcomes import sides


@dataclass
class LeaderboardRow:
    """One agent's line. `lower`/`upper` are the method's interval (equal to `rating` when the
    method gives none); `matches` counts the matches of the selection the agent played;
    `provisional` is set by `mark_provisional`."""

    agent_name: str
    rating: float
    lower: float
    upper: float
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rank: int = 0
    extra: dict[str, float] = field(default_factory=dict)
    provisional: bool = False


#: Rows of agents with fewer matches than this are provisional.
PROVISIONAL_MATCHES = 10


def mark_provisional(rows: list[LeaderboardRow], threshold: int = PROVISIONAL_MATCHES) -> list[LeaderboardRow]:
    """Sets `provisional` on every row: fewer than `threshold` matches."""
    for row in rows:
        row.provisional = row.matches < threshold
    return rows


def tally(matches: Iterable[MatchRecord], rows: dict[str, LeaderboardRow], pool: Iterable[str] | None = None) -> None:
    """Counts matches, wins (the agent's side ranked first alone), draws (first place shared) and
    losses into `rows`, creating rows (rating 0) for agents not yet present. Sides are teams, so
    teammates share a result; matches with fewer than two sides (self-play) are not counted."""
    pool = set(pool) if pool is not None else None
    for match in matches:
        ss = sides(match, pool)
        if not ss:
            continue
        top = min(s.rank for s in ss)
        top_count = sum(s.rank == top for s in ss)
        for side in ss:
            for name in side.agents:
                row = rows.setdefault(name, LeaderboardRow(name, 0.0, 0.0, 0.0))
                row.matches += 1
                if side.rank != top:
                    row.losses += 1
                elif top_count == 1:
                    row.wins += 1
                else:
                    row.draws += 1


def rank_by_position(rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """Ranks 1..n in the given order."""
    for position, row in enumerate(rows, start=1):
        row.rank = position
    return rows


def rank_by_separation(rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """rank = 1 + the number of agents whose lower bound is above my upper bound (agents whose
    intervals overlap can share a rank, as on Chatbot Arena). Rows are ordered by rank, then by
    rating, best first."""
    for row in rows:
        row.rank = 1 + sum(other.lower > row.upper for other in rows)
    return sorted(rows, key=lambda r: (r.rank, -r.rating, r.agent_name))
