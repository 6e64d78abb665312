"""GTBench's Normalized Relative Advantage, per pairing and game (GTBench reference §4.1, §6 #1).

For agents P_i, P_j and the M matches they played against each other in one game:
    NRA(P_i, P_j) = (Σ_m f(P_i, m) − Σ_m f(P_j, m)) / (Σ_m |f(P_i, m)| + Σ_m |f(P_j, m)|),
and 0 when the denominator is 0 (`variant="sum_abs"`, the paper's text and the default). The
released code's variant puts the absolute values outside the sums:
(Σf_i − Σf_j) / (|Σf_i| + |Σf_j|) (`variant="abs_sum"`).

f is the per-match score:
- beat-the-opponent games: +1 win, 0 draw, −1 loss (so NRA = (W − L)/(W + L));
- earn-rewards games (Kuhn poker, negotiation, sealed-bid auction, iterated prisoner's dilemma):
  the return the agent earned (the mean over its seats when it holds several).
Only matches between exactly two sides count (GTBench's games are two-player). Across games, the
unweighted mean of the per-game NRAs. NRA gives no interval: lower = upper = rating.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_position, tally
from .outcomes import sides

EARN_REWARDS_GAMES = frozenset({"kuhn_poker", "negotiation", "sealed_bid_auction", "iterated_prisoners_dilemma"})
MODES = ("beat", "earn")
VARIANTS = ("sum_abs", "abs_sum")


def nra(f_i: Sequence[float], f_j: Sequence[float], variant: str = "sum_abs") -> float:
    """NRA of i against j from their per-match scores."""
    if variant == "sum_abs":
        denom = sum(abs(x) for x in f_i) + sum(abs(x) for x in f_j)
    elif variant == "abs_sum":
        denom = abs(sum(f_i)) + abs(sum(f_j))
    else:
        raise ValueError(f"unknown NRA variant {variant!r} (known: {', '.join(VARIANTS)})")
    return 0.0 if denom == 0 else (sum(f_i) - sum(f_j)) / denom


def game_mode(game_id: str, modes: Mapping[str, str] | None = None) -> str:
    mode = (modes or {}).get(game_id) or ("earn" if game_id in EARN_REWARDS_GAMES else "beat")
    if mode not in MODES:
        raise ValueError(f"unknown NRA mode {mode!r} for {game_id} (known: {', '.join(MODES)})")
    return mode


def match_scores(match: MatchRecord, mode: str) -> dict[str, float] | None:
    """f for the two agents of a two-sided match with one agent per side; None otherwise."""
    ss = sides(match)
    if len(ss) != 2 or any(len(s.agents) != 1 for s in ss):
        return None
    (a, b) = ss
    if mode == "earn":
        return {a.agents[0]: a.value, b.agents[0]: b.value}
    fa = 0.0 if a.rank == b.rank else (1.0 if a.rank < b.rank else -1.0)
    return {a.agents[0]: fa, b.agents[0]: -fa}


@dataclass
class NraCell:
    game_id: str
    agent: str
    opponent: str
    nra: float
    matches: int


def nra_table(matches: Iterable[MatchRecord], *, modes: Mapping[str, str] | None = None,
              variant: str = "sum_abs") -> dict[tuple[str, str, str], NraCell]:
    """NRA for every (game, agent, opponent) that met, both directions."""
    scores: dict[tuple[str, str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for match in matches:
        f = match_scores(match, game_mode(match.game_id, modes))
        if f is None:
            continue
        (a, fa), (b, fb) = sorted(f.items())
        mine, theirs = scores[(match.game_id, a, b)]
        mine.append(fa)
        theirs.append(fb)
    out = {}
    for (g, a, b), (fa, fb) in scores.items():
        out[(g, a, b)] = NraCell(g, a, b, nra(fa, fb, variant), len(fa))
        out[(g, b, a)] = NraCell(g, b, a, nra(fb, fa, variant), len(fa))
    return out


def nra_leaderboard(matches: Iterable[MatchRecord], *, opponent: str | None = None,
                    modes: Mapping[str, str] | None = None, variant: str = "sum_abs",
                    pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    """Per agent: the mean over games of its NRA against `opponent` in that game (or, without an
    opponent, of the mean NRA against the opponents it met there). `extra` holds the per-game
    values."""
    matches = list(matches)
    pool = set(pool) if pool is not None else None
    table = nra_table(matches, modes=modes, variant=variant)
    per_game: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (g, a, b), cell in table.items():
        if opponent and b != opponent:
            continue
        if pool is not None and (a not in pool or b not in pool):
            continue
        per_game[a][g].append(cell.nra)
    counted: dict[str, LeaderboardRow] = {}
    tally(matches, counted, pool)
    rows = []
    for agent, games in per_game.items():
        values = {g: sum(v) / len(v) for g, v in games.items()}
        rating = sum(values.values()) / len(values)
        row = counted.get(agent) or LeaderboardRow(agent, 0.0, 0.0, 0.0)
        row.rating = row.lower = row.upper = rating
        row.extra = dict(sorted(values.items()))
        rows.append(row)
    return rank_by_position(sorted(rows, key=lambda r: (-r.rating, r.agent_name)))
