"""One entry point for every leaderboard: select matches (game, suite, agent pool), apply a preset,
dispatch to the method, describe the result, mark provisional rows. Used by the GetLeaderboard
RPC, the CLI and reports.

Intervals per method (`Leaderboard.has_interval`): Bradley–Terry, the bootstrap percentile
interval at `level`; Elo, the bootstrap percentile interval (Chatbot Arena's, 95 % by default);
TrueSkill, μ ± 3σ; NRA and suite scores have none (lower = upper = rating, not to be shown).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from ..store import MatchRecord
from .board import PROVISIONAL_MATCHES, LeaderboardRow, mark_provisional
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
                 "weights, α 0.001 and no prior, rating = mean of 10,000 resamples drawn ∝ 1/N_game, 90 % "
                 "percentile interval (the published procedure, kept as published: unanimous or small records "
                 "get narrow intervals; the default Bradley–Terry does not)",
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
                q.bt = dataclasses.replace(q.bt, alpha=0.001, prior=0.0, level=0.90, weighting="game",
                                           point="mean", resamples=1000 if code else 10_000,
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
        q.elo.validate()
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
    level: float = 0.0                      # confidence level of a bootstrap interval; 0: none
    resamples: int = 0
    preset: str = ""
    has_interval: bool = False              # lower/upper are an interval (else equal to the rating)
    provisional_matches: int = PROVISIONAL_MATCHES


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
    board = _compute(matches, (query or LeaderboardQuery()).resolved())
    mark_provisional(board.rows, board.provisional_matches)
    return board


def _compute(matches: Sequence[MatchRecord], q: LeaderboardQuery) -> Leaderboard:
    chosen = select(matches, q)
    games = sorted({m.game_id for m in chosen})
    pool = q.agents or None
    scope = f" of {q.game_id}" if q.game_id else f" of suite {q.suite}" if q.suite else ""
    provisional = f"; ? = provisional (fewer than {PROVISIONAL_MATCHES} matches)"
    if q.method == "trueskill":
        rows = trueskill_leaderboard(chosen, settings=q.trueskill, orders=q.trueskill_orders,
                                     seed=q.trueskill_seed, pool=pool)
        by = "μ" if q.trueskill.rank_by == "mu" else "μ − 3σ"
        orders = f", averaged over {q.trueskill_orders} random orders" if q.trueskill_orders else ""
        text = f"TrueSkill{scope}: rating μ, interval μ ± 3σ, ranked by {by}{orders}{provisional}"
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset, has_interval=True)
    if q.method == "elo":
        elo = dataclasses.replace(q.elo, ties=q.ties or q.elo.ties, scoring=q.scoring)
        rows = elo_leaderboard(chosen, elo, pool=pool)
        if elo.resamples:
            interval = (f"{elo.level:.0%} interval of the Elo of {elo.resamples} bootstrap resamples of the log "
                        f"replayed in drawn order (seed {elo.seed}), as Chatbot Arena")
        else:
            interval = "no interval"
        text = (f"Elo{scope}: rating = Elo in end order, K {elo.k_factor:g}, initial {elo.initial:g}; draws "
                f"{'½' if elo.ties == 'half' else 'skipped'}; {interval}; ranked by rating{provisional}")
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset, has_interval=elo.resamples > 0,
                           level=elo.level if elo.resamples else 0.0, resamples=elo.resamples)
    if q.method == "nra":
        rows = nra_leaderboard(chosen, opponent=q.nra_opponent or None, variant=q.nra_variant, pool=pool)
        against = f"against {q.nra_opponent}" if q.nra_opponent else "against the opponents met"
        text = f"NRA (GTBench){scope}: mean over games of the per-game NRA {against}; no interval{provisional}"
        return Leaderboard(q.method, rows, len(chosen), text, games, preset=q.preset)
    if q.method == "suite_score":
        if not q.suite:
            raise ValueError("the suite score needs a suite")
        score = suite_score(q.suite)
        rows = score.scorer(chosen)
        return Leaderboard(q.method, rows, len(chosen), score.description + provisional, games, preset=q.preset,
                           has_interval=score.has_interval)
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
    if o.prior:
        wins = f"{o.prior:g} win{'s' if o.prior != 1 else ''} and {o.prior:g} loss{'es' if o.prior != 1 else ''}"
        model = (f"rating = {'mean of the resamples' if o.point == 'mean' else 'posterior mode'} under a prior of "
                 f"{wins} per agent against a reference agent{f' (α {o.alpha:g})' if o.alpha else ''}")
        zero = "; 0 = the information-weighted mean agent" if o.anchor is None else ""
    else:
        model = (f"rating = {'mean of the resamples' if o.point == 'mean' else 'maximum likelihood'} "
                 f"(α {o.alpha:g}, no prior)")
        zero = ""
    kind, how = {"bayesian": ("Bayesian-bootstrap", "every match and pseudo-comparison reweighted"),
                 "multinomial": ("bootstrap", "matches drawn ∝ weight"),
                 "python": ("bootstrap", "Python RNG, matches drawn ∝ weight")}[o.sampler]
    anchor = f"; anchored at {o.anchor} = {o.anchor_rating:g}" if o.anchor else ""
    scale = f"; scale ×{o.scale:g}" if o.scale != 1 else ""
    text = (f"Bradley–Terry{scope}: {model}, {o.level:.0%} interval from {o.resamples} {kind} resamples "
            f"(seed {o.seed}; {how}), "
            f"{weighting}, ties {'dropped' if ties == 'drop' else 'as ½'}{zero}{anchor}{scale}; "
            f"rank = 1 + agents whose lower bound is above my upper bound{provisional}")
    return Leaderboard(q.method, rows, len(chosen), text, games, level=o.level, resamples=o.resamples,
                       preset=q.preset, has_interval=o.resamples > 0)
