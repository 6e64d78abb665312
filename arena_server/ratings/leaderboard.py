"""One entry point for every leaderboard: select matches (game, suite, agent pool), apply a preset,
dispatch to the method, describe the result. Used by the GetLeaderboard RPC, the CLI and reports.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from ..store import MatchRecord
from .board import LeaderboardRow
from .bradley_terry import BTOptions, bradley_terry_leaderboard, rows_from_result
from .elo import EloOptions, elo_leaderboard
from .gamebench import table2
from .nra import VARIANTS, nra_leaderboard
from .outcomes import SCORINGS, TIES, WEIGHTINGS
from .suites import suite_games, suite_score
from .trueskill_board import TRUESKILL_PRESETS, TrueSkillSettings, trueskill_leaderboard

METHODS = ("trueskill", "bradley_terry", "elo", "nra", "suite_score")

#: Named procedures of the reproduced benchmarks. A preset fixes the method and its settings;
#: explicit options given with it still apply where the preset leaves them open (seed, anchor).
PRESETS = {
    "gamebench": "GameBench as the paper states it: Bradley–Terry on return shares, ties dropped, per-game "
                 "weights, α 0.001, rating = mean of 10,000 resamples, 90 % percentile interval",
    "gamebench_code": "GameBench as its released code runs it: as `gamebench` with 1,000 resamples drawn with "
                      "Python's random.Random(seed).choices in the authors' call order (seed 0 reproduces the "
                      "paper's Table 2 exactly)",
    "llmarena": "LLMArena: TrueSkill with the library defaults, winners against the rest, reported by μ",
    "gtbench": "GTBench: NRA per pairing and game (Σ|f| denominator), mean across games",
}


@dataclass
class LeaderboardQuery:
    method: str = ""                        # "" = TrueSkill, or the preset's method
    game_id: str = ""
    suite: str = ""
    agents: list[str] | None = None         # the agent pool; None = everyone
    weighting: str = "game"
    ties: str | None = None                 # None: the method's default (BT drops, Elo halves)
    scoring: str = "rank"
    preset: str = ""
    bt: BTOptions = field(default_factory=BTOptions)
    trueskill: TrueSkillSettings = field(default_factory=TrueSkillSettings)
    trueskill_orders: int = 0
    trueskill_seed: int = 0
    elo: EloOptions = field(default_factory=EloOptions)
    nra_opponent: str = ""
    nra_variant: str = "sum_abs"

    def resolved(self) -> "LeaderboardQuery":
        """A copy with the preset applied and every choice checked."""
        q = dataclasses.replace(self, bt=dataclasses.replace(self.bt), elo=dataclasses.replace(self.elo))
        if q.preset:
            if q.preset not in PRESETS:
                raise ValueError(f"unknown preset {q.preset!r} (known: {', '.join(sorted(PRESETS))})")
            method = {"gamebench": "bradley_terry", "gamebench_code": "bradley_terry", "llmarena": "trueskill",
                      "gtbench": "nra"}[q.preset]
            if q.method not in ("", method):
                raise ValueError(f"preset {q.preset!r} is a {method} procedure, not {q.method}")
            q.method = method
            if q.preset.startswith("gamebench"):
                code = q.preset == "gamebench_code"
                q.scoring, q.ties, q.weighting = "share", "drop", "game"
                q.bt = dataclasses.replace(q.bt, alpha=0.001, level=0.90, weighting="game", point="mean",
                                           resamples=1000 if code else 10_000,
                                           sampler="python" if code else "multinomial")
            elif q.preset == "llmarena":
                q.trueskill = TRUESKILL_PRESETS["llmarena"]
            elif q.preset == "gtbench":
                q.nra_variant = "sum_abs"
        q.method = q.method or "trueskill"
        if q.method not in METHODS:
            raise ValueError(f"unknown method {q.method!r} (known: {', '.join(METHODS)})")
        for value, known, what in ((q.weighting, WEIGHTINGS, "weighting"), (q.scoring, SCORINGS, "scoring"),
                                   (q.nra_variant, VARIANTS, "NRA variant")):
            if value not in known:
                raise ValueError(f"unknown {what} {value!r} (known: {', '.join(known)})")
        if q.ties is not None and q.ties not in TIES:
            raise ValueError(f"unknown tie policy {q.ties!r} (known: {', '.join(TIES)})")
        if q.suite:
            suite_games(q.suite)
            if q.game_id and q.game_id not in suite_games(q.suite):
                raise ValueError(f"game {q.game_id!r} is not in suite {q.suite!r}")
        q.bt.weighting = q.weighting
        q.bt.validate()
        if q.bt.anchor == "":
            q.bt.anchor = None
        return q


@dataclass
class Leaderboard:
    method: str
    rows: list[LeaderboardRow]
    matches_counted: int
    description: str
    games: list[str]
    level: float = 0.0
    resamples: int = 0
    preset: str = ""


def select(matches: Sequence[MatchRecord], query: LeaderboardQuery, *, by_game: bool = True) -> list[MatchRecord]:
    """The matches of the query's game (when `by_game`) or suite, in the given (end) order."""
    out = []
    suite = set(suite_games(query.suite)) if query.suite else None
    for m in matches:
        if m.status != "finished":
            continue
        if by_game and query.game_id and m.game_id != query.game_id:
            continue
        if suite is not None and m.game_id not in suite:
            continue
        out.append(m)
    return out


def compute_leaderboard(matches: Sequence[MatchRecord], query: LeaderboardQuery | None = None) -> Leaderboard:
    """The leaderboard of `matches` (finished matches in end order; selection by game/suite here)."""
    q = (query or LeaderboardQuery()).resolved()
    chosen = select(matches, q)
    games = sorted({m.game_id for m in chosen})
    pool = q.agents or None
    scope = f" of {q.game_id}" if q.game_id else f" of suite {q.suite}" if q.suite else ""
    if q.method == "trueskill":
        rows = trueskill_leaderboard(chosen, settings=q.trueskill, orders=q.trueskill_orders,
                                     seed=q.trueskill_seed, pool=pool)
        by = "μ" if q.trueskill.rank_by == "mu" else "μ − 3σ"
        orders = f", averaged over {q.trueskill_orders} random orders" if q.trueskill_orders else ""
        text = f"TrueSkill{scope}: rating μ, interval μ ± 3σ, ranked by {by}{orders}"
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset)
    if q.method == "elo":
        elo = dataclasses.replace(q.elo, ties=q.ties or q.elo.ties, scoring=q.scoring)
        rows = elo_leaderboard(chosen, elo, pool=pool)
        text = (f"Elo{scope}: K {elo.k_factor:g}, initial {elo.initial:g}, in end order; draws "
                f"{'½' if elo.ties == 'half' else 'skipped'}; no interval")
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset)
    if q.method == "nra":
        rows = nra_leaderboard(chosen, opponent=q.nra_opponent or None, variant=q.nra_variant, pool=pool)
        against = f"against {q.nra_opponent}" if q.nra_opponent else "against the opponents met"
        text = f"NRA (GTBench){scope}: mean over games of the per-game NRA {against}; no interval"
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset)
    if q.method == "suite_score":
        if not q.suite:
            raise ValueError("the suite score needs a suite")
        score = suite_score(q.suite)
        rows = score.scorer(chosen)
        return Leaderboard(q.method, rows, len(chosen), score.description, games, preset=q.preset)
    # Bradley–Terry
    ties = q.ties or "drop"
    o = q.bt
    if o.sampler == "python" and q.preset == "gamebench_code":
        everything = select(matches, q, by_game=False)
        agents = sorted({p["agent_name"] for m in everything for p in m.players if pool is None or p["agent_name"] in pool})
        t = table2(everything, exact=True, resamples=o.resamples, seed=o.seed, agents=agents, pool=pool)
        if q.game_id not in ("", *t.per_game):
            raise ValueError(f"no matches of {q.game_id!r}")
        result = t.per_game[q.game_id] if q.game_id else t.overall
        rows = rows_from_result(result, chosen, pool)
    else:
        rows, result = bradley_terry_leaderboard(chosen, o, scoring=q.scoring, ties=ties, pool=pool)
    weighting = "per-game weights 1/N_game" if o.weighting == "game" else "every match weighted equally"
    point = "mean of the resamples" if o.point == "mean" else "maximum likelihood"
    anchor = f"; anchored at {o.anchor} = {o.anchor_rating:g}" if o.anchor else ""
    scale = f"; scale ×{o.scale:g}" if o.scale != 1 else ""
    text = (f"Bradley–Terry{scope}: rating = {point} (α {o.alpha:g}), {o.level:.0%} bootstrap interval from "
            f"{o.resamples} resamples (seed {o.seed}{', Python RNG' if o.sampler == 'python' else ''}), "
            f"{weighting}, ties {'dropped' if ties == 'drop' else 'as ½'}{anchor}{scale}; "
            f"rank = 1 + agents whose lower bound is above my upper bound")
    return Leaderboard(q.method, rows, len(chosen), text, games, level=o.level, resamples=o.resamples,
                       preset=q.preset)
