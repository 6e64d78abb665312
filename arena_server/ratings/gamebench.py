"""GameBench's rating procedure (Costarelli et al. 2024): its data format, its Table 2 (bootstrapped
Bradley–Terry, overall and per game) and its Table 3 (average scores).

GameBench records one comparison per match as `{"game": id, agent_a: score_a, agent_b: score_b}`
with scores in [0, 1] summing to 1 (1/0 a win, ½/½ a draw, fractions a share of in-game points).
`records_from_gamebench` turns such records into arena match records (two seats, returns = the
scores), so the arena's own match-log pipeline rates them: scoring by return share, ties dropped,
per-game weights 1/N_game, regularisation 0.001, rating = mean of the resamples, 90 % percentile
interval.

`table2(..., exact=True)` runs the authors' seeded procedure: one `random.Random(seed)` shared, in
their call order, by one bootstrap per game (games in alphabetical order of id, matches in log
order), then two bootstraps over all matches of which the second gives the Overall column. With
B = 1,000 and seed 0 this reproduces every value printed in the paper's Table 2.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..store import MatchRecord
from .bradley_terry import BTOptions, BTResult, bootstrap_python, bradley_terry, summarize
from .outcomes import comparisons, pairwise_data, sides, side_score

#: GameBench's procedure as the paper states it (B = 10,000) and as its code runs it (B = 1,000):
#: no prior, choix's regularisation 0.001, all matches drawn ∝ 1/N_game, rating = mean of the resamples.
GAMEBENCH_OPTIONS = dict(alpha=0.001, prior=0.0, level=0.90, weighting="game", point="mean")
SCORING, TIES = "share", "drop"


def gamebench_options(*, code: bool = False, seed: int = 0, resamples: int | None = None) -> BTOptions:
    """`code=True`: the authors' released code (B = 1,000, Python RNG per-match resampling)."""
    b = resamples if resamples is not None else (1000 if code else 10_000)
    return BTOptions(resamples=b, seed=seed, sampler="python" if code else "multinomial", **GAMEBENCH_OPTIONS)


def records_from_gamebench(entries: Iterable[dict[str, Any]], tournament_id: str = "gamebench") -> list[MatchRecord]:
    """Arena match records from GameBench's `matches.json` entries, in file order (`ended_at` is
    the position in the file, so the log order is the file order)."""
    out = []
    for k, entry in enumerate(entries):
        agents = [(name, float(score)) for name, score in entry.items() if name != "game"]
        if len(agents) != 2:
            raise ValueError(f"entry {k}: expected two agents, got {len(agents)}")
        returns = [s for _, s in agents]
        ranks = [1 + sum(o > r for o in returns) for r in returns]
        out.append(MatchRecord(
            match_id=f"gamebench-{k:05d}", tournament_id=tournament_id, game_id=entry["game"], rules_version="gamebench",
            parameters={}, players=[{"seat": i, "agent_name": name, "team": i, "house_agent": False}
                                    for i, (name, _) in enumerate(agents)],
            seed=0, time_control={}, failure_policy={}, status="finished",
            result={"reason": "normal", "returns": returns, "ranks": ranks}, created_at=float(k), ended_at=float(k),
        ))
    return out


def gamebench_entries(matches: Iterable[MatchRecord], games: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """GameBench's dataset entries (`records_from_gamebench`'s input) for the finished matches with
    two sides of one agent each (team seats count once), in the given order: each side's points share,
    as `scoring="share"` rates them. A match of an agent against itself, or of more than two agents,
    has no GameBench form and is left out; `games` keeps only those games."""
    wanted = set(games) if games is not None else None
    out = []
    for match in matches:
        if match.status != "finished" or (wanted is not None and match.game_id not in wanted):
            continue
        pair = sides(match)
        if len(pair) != 2 or any(len(side.agents) != 1 for side in pair):
            continue
        a, b = pair
        out.append({"game": match.game_id, a.agents[0]: side_score(a, b, SCORING), b.agents[0]: side_score(b, a, SCORING)})
    return out


@dataclass
class Table2:
    agents: list[str]
    overall: BTResult
    per_game: dict[str, BTResult]
    played: dict[str, set[str]]         # game -> agents with at least one match in it


def table2(matches: Sequence[MatchRecord], *, exact: bool = True, resamples: int | None = None, seed: int = 0,
           agents: Sequence[str] | None = None, pool: Iterable[str] | None = None) -> Table2:
    """GameBench's Table 2: overall and per-game ratings. Every fit is over all agents (an agent
    absent from a game still gets a per-game value from regularisation and centring; `played`
    says which are real)."""
    matches = list(matches)
    agents = list(agents) if agents is not None else sorted({p["agent_name"] for m in matches for p in m.players})
    options = gamebench_options(code=exact, seed=seed, resamples=resamples)
    games = sorted({m.game_id for m in matches})
    by_game = {g: [m for m in matches if m.game_id == g] for g in games}
    data = {g: pairwise_data(by_game[g], agents=agents, scoring=SCORING, ties=TIES, pool=pool) for g in games}
    everything = pairwise_data(matches, agents=agents, scoring=SCORING, ties=TIES, pool=pool)
    played = {g: {p["agent_name"] for m in by_game[g] for p in m.players} for g in games}
    if not exact:
        per_game = {}
        for k, g in enumerate(games):
            per_game[g] = bradley_terry(data[g], BTOptions(**{**vars(options), "seed": seed + 1 + k}))
        return Table2(agents, bradley_terry(everything, options), per_game, played)
    rng = random.Random(seed)

    def run(d):
        return bootstrap_python(d, rng, resamples=options.resamples, weighting=options.weighting,
                                alpha=options.alpha, max_iter=options.max_iter, tol=options.tol)

    per_game = {g: summarize(data[g], run(data[g]), options) for g in games}
    run(everything)                                   # the authors' first, discarded, overall run
    overall = summarize(everything, run(everything), options)
    return Table2(agents, overall, per_game, played)


def average_scores(matches: Iterable[MatchRecord]) -> dict[str, dict[str, tuple[float, int]]]:
    """GameBench's Table 3: per agent, {game: (total score ÷ matches played, matches)} plus the key
    "overall". A match's score is the agent's return share against its opponent (ties ½)."""
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for m in matches:
        cs = comparisons(m, SCORING)
        if not cs:
            continue
        got: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for c in cs:
            got[c.a][0] += c.score * c.weight
            got[c.a][1] += c.weight
            got[c.b][0] += (1 - c.score) * c.weight
            got[c.b][1] += c.weight
        for name, (score, weight) in got.items():
            for key in (m.game_id, "overall"):
                totals[name][key][0] += score / weight
                totals[name][key][1] += 1
    return {name: {g: (t / k, int(k)) for g, (t, k) in games.items()} for name, games in totals.items()}


def win_matrix(result: BTResult) -> np.ndarray:
    """P(row beats column) from the point ratings (GameBench's win-probability figure)."""
    r = result.point / result.options.scale
    return 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))
