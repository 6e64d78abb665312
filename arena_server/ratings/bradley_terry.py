"""Bradley–Terry maximum likelihood with bootstrap confidence intervals: the canonical leaderboard.

Model: P(i beats j) = e^{β_i} / (e^{β_i} + e^{β_j}), natural-log strengths, mean-centred.
Fit: `choix.ilsr_pairwise_dense` on the matrix s (s[i, j] = score i earned against j; fractional
scores are fractional wins), with regularisation α (default 0.001, as GameBench's code). Its fixed
point is the β with Σβ = 0 and, for w = n·softmax(β),
Σ_{j≠i} (w_j·s_ij − w_i·s_ji)/(w_i + w_j) = α·n·(w_i − 1) for every i.

Bootstrap: a resample draws as many matches as the data holds, with replacement, each match with
probability ∝ its weight (1/N_game pooled across games, uniform within one game). Two samplers:
- `"multinomial"` (default, fast): one multinomial draw of outcome-class counts per resample and
  one weighted bincount for s (see `outcomes.PairwiseData`); no Python loop over matches. With
  up to 64 agents the fits of a batch of resamples run together (`fit_batch`: choix's ILSR
  iteration and stopping rule, vectorised over the batch; it agrees with
  `choix.ilsr_pairwise_dense` to ~1e-12); with more, one choix fit per resample.
- `"python"`: the authors' per-match recipe with Python's `random.Random.choices`, which
  reproduces GameBench's printed numbers exactly when driven in their call order
  (`gamebench.table2`). Slow on large logs.

Rating: the full-data (weighted) fit (`point="mle"`), or the mean of the resamples
(`point="mean"`, GameBench). Interval: the percentile bootstrap interval at `level` (NumPy's
linear interpolation). Rank: 1 + the number of agents whose lower bound is above my upper bound.
Ratings can be anchored: rating = anchor_rating + scale·(β − β_anchor), applied to every
resample (so the anchor's interval is a point); without an anchor, anchor_rating + scale·β.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import choix
import numpy as np

from ..store import MatchRecord
from .board import LeaderboardRow, rank_by_separation, tally
from .outcomes import PairwiseData, pairwise_data

SAMPLERS = ("multinomial", "python")
POINTS = ("mle", "mean")


@dataclass
class BTOptions:
    alpha: float = 0.001
    resamples: int = 1000
    level: float = 0.90
    seed: int = 0
    weighting: str = "game"         # "game": 1/N_game per match; "match": uniform
    point: str = "mle"              # "mle" | "mean"
    anchor: str | None = None
    anchor_rating: float = 0.0
    scale: float = 1.0
    sampler: str = "multinomial"    # "multinomial" | "python"
    max_iter: int = 100
    tol: float = 1e-8

    def validate(self) -> None:
        if self.sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {self.sampler!r} (known: {', '.join(SAMPLERS)})")
        if self.point not in POINTS:
            raise ValueError(f"unknown point estimate {self.point!r} (known: {', '.join(POINTS)})")
        if not 0 < self.level < 1:
            raise ValueError("confidence level must be in (0, 1)")
        if self.resamples < 0:
            raise ValueError("resamples must be >= 0")
        if self.alpha < 0:
            raise ValueError("regularisation must be >= 0")
        if self.point == "mean" and self.resamples == 0:
            raise ValueError("point='mean' needs resamples > 0")


@dataclass
class BTResult:
    agents: list[str]
    point: np.ndarray               # (n,) ratings, anchored and scaled
    lower: np.ndarray
    upper: np.ndarray
    samples: np.ndarray             # (B, n) resample ratings, anchored and scaled
    level: float
    num_matches: int
    options: BTOptions = field(default_factory=BTOptions)

    def as_dict(self) -> dict[str, tuple[float, float, float]]:
        return {a: (float(self.point[i]), float(self.lower[i]), float(self.upper[i])) for i, a in enumerate(self.agents)}


def fit(s: np.ndarray, alpha: float = 0.001, initial: np.ndarray | None = None, max_iter: int = 100,
        tol: float = 1e-8) -> np.ndarray:
    """Mean-centred log-strengths for the comparison matrix `s` (choix's ILSR fixed point)."""
    s = np.asarray(s, dtype=float)
    if s.shape[0] == 0:
        return np.zeros(0)
    if s.shape[0] == 1:
        return np.zeros(1)
    try:
        try:
            return choix.ilsr_pairwise_dense(s, alpha=alpha, initial_params=initial, max_iter=max_iter, tol=tol)
        except RuntimeError:
            # Not converged in max_iter (slow mixing when strengths are far apart): go on longer.
            return choix.ilsr_pairwise_dense(s, alpha=alpha, initial_params=None, max_iter=20 * max_iter, tol=tol)
    except (ValueError, np.linalg.LinAlgError) as e:
        raise ValueError("Bradley–Terry has no finite fit: the comparison graph is not strongly connected "
                         "(use a regularisation > 0)") from e


def _lsr_step(s: np.ndarray, params: np.ndarray, alpha: float) -> np.ndarray:
    """One ILSR step for a stack of matrices, as `choix.lsr_pairwise_dense` does for one: the
    stationary distribution of the rate matrix Q_ij = α + s_ji/(w_i + w_j) by an exact linear
    solve, log-transformed and centred. Rows whose solution is not positive come back as NaN."""
    b, n, _ = s.shape
    w = np.exp(params - params.mean(axis=1, keepdims=True))
    w *= n / w.sum(axis=1, keepdims=True)
    chain = alpha + s.transpose(0, 2, 1) / (w[:, :, None] + w[:, None, :])
    idx = np.arange(n)
    chain[:, idx, idx] = 0.0
    chain[:, idx, idx] = -chain.sum(axis=2)
    a = chain.transpose(0, 2, 1).copy()            # Q^T pi = 0, with the last equation replaced by sum(pi) = 1
    a[:, -1, :] = 1.0
    rhs = np.zeros((b, n, 1))
    rhs[:, -1, 0] = 1.0
    with np.errstate(all="ignore"):
        pi = np.linalg.solve(a, rhs)[:, :, 0]
        bad = ~(pi > 0).all(axis=1)
        logs = np.log(np.where(bad[:, None], 1.0, pi))
    out = logs - logs.mean(axis=1, keepdims=True)
    out[bad] = np.nan
    return out


def fit_batch(s: np.ndarray, alpha: float = 0.001, initial: np.ndarray | None = None, max_iter: int = 100,
              tol: float = 1e-8) -> np.ndarray:
    """`fit` for a stack of matrices (B, n, n) at once: the same iteration and stopping rule as
    choix's ILSR (start from `initial`, else β = 0; stop a row when the L1 change of its centred
    parameters is ≤ tol·n), vectorised over the stack. Rows that do not converge, or whose
    linear system is singular, are refitted one by one with `fit`."""
    s = np.asarray(s, dtype=float)
    b, n, _ = s.shape
    if n < 2 or b == 0:
        return np.zeros((b, n))
    if initial is None:
        cur = np.zeros((b, n))
    else:
        cur = np.repeat((np.asarray(initial, dtype=float) - np.mean(initial))[None, :], b, axis=0)
    out = np.full((b, n), np.nan)
    prev = np.empty((b, n))
    active = np.arange(b)
    failed: list[np.ndarray] = []
    for it in range(max_iter):
        try:
            new = _lsr_step(s[active], cur[active], alpha)
        except np.linalg.LinAlgError:
            failed.append(active)
            active = active[:0]
            break
        broken = np.isnan(new).any(axis=1)
        if broken.any():
            failed.append(active[broken])
            active, new = active[~broken], new[~broken]
        cur[active] = new
        if it > 0:
            done = np.abs(prev[active] - new).sum(axis=1) <= tol * n
            out[active[done]] = new[done]
            active, new = active[~done], new[~done]
        prev[active] = new
        if active.size == 0:
            break
    for row in np.concatenate([active, *failed]) if (active.size or failed) else []:
        out[row] = fit(s[row], alpha, None, max_iter, tol)
    return out


#: Above this many agents one choix fit per resample is as fast as the batched fit (the n×n
#: solve dominates); below it, batching removes the per-fit Python overhead.
BATCH_MAX_AGENTS = 64


def _chunk(n: int) -> int:
    """Resamples per batch: about 2^21 matrix cells (16 MB) at a time."""
    return max(1, (1 << 21) // max(1, n * n))


def bootstrap(data: PairwiseData, *, resamples: int = 1000, seed: int = 0, weighting: str = "game",
              alpha: float = 0.001, initial: np.ndarray | None = None, max_iter: int = 100,
              tol: float = 1e-8) -> np.ndarray:
    """(resamples, n) log-strengths of resamples of the matches (the fast sampler): class counts
    from one multinomial draw per resample, s by one weighted bincount, fits batched."""
    rng = np.random.default_rng(seed)
    n, m = data.n, data.num_matches
    out = np.empty((resamples, n))
    if m == 0:
        out[:] = 0.0
        return out
    p = data.class_probabilities(weighting)
    step = _chunk(n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        counts = rng.multinomial(m, p, size=size).astype(float)
        if n > BATCH_MAX_AGENTS:
            for k, c in enumerate(counts):
                out[start + k] = fit(data.matrix(c), alpha, initial, max_iter, tol)
        else:
            mats = np.stack([data.matrix(c) for c in counts])
            out[start:start + size] = fit_batch(mats, alpha, initial, max_iter, tol)
    return out


def bootstrap_python(data: PairwiseData, rng: random.Random, *, resamples: int = 1000, weighting: str = "game",
                     alpha: float = 0.001, max_iter: int = 100, tol: float = 1e-8) -> np.ndarray:
    """GameBench's resampling: per resample, `rng.choices(matches, weights=[1/N_game], k=len)`
    (weights passed even when uniform: the two code paths consume the generator differently),
    then a fit from β = 0."""
    m, n = data.num_matches, data.n
    if m == 0:
        return np.zeros((resamples, n))
    if weighting == "game":
        per_game = np.bincount(data.match_game, minlength=len(data.games))
        weights = [1 / int(per_game[g]) for g in data.match_game]
    else:
        weights = [1.0] * m
    population = range(m)
    out = np.empty((resamples, n))
    step = _chunk(n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        mats = np.stack([data.match_matrix(rng.choices(population, weights=weights, k=m)) for _ in range(size)])
        out[start:start + size] = fit_batch(mats, alpha, None, max_iter, tol)
    return out


def summarize(data: PairwiseData, samples: np.ndarray, options: BTOptions,
              point: np.ndarray | None = None) -> BTResult:
    """Anchors, scales and summarises log-strength resamples (and the full-data fit, if given)."""
    agents = data.agents
    if options.anchor is not None and options.anchor not in agents:
        raise ValueError(f"anchor agent {options.anchor!r} has no comparisons in this selection")

    def transform(beta: np.ndarray) -> np.ndarray:
        ref = beta[..., agents.index(options.anchor)][..., None] if options.anchor is not None else 0.0
        return options.anchor_rating + options.scale * (beta - ref)

    scaled = transform(samples) if len(samples) else samples
    if options.point == "mean":
        est = scaled.mean(axis=0)
    else:
        if point is None:
            point = fit(data.expected_matrix(options.weighting), options.alpha, None, options.max_iter, options.tol)
        est = transform(point)
    if len(samples):
        q = 100 * (1 - options.level) / 2
        lower, upper = np.percentile(scaled, [q, 100 - q], axis=0)
    else:
        lower, upper = est.copy(), est.copy()
    return BTResult(agents=list(agents), point=est, lower=lower, upper=upper, samples=scaled, level=options.level,
                    num_matches=data.num_matches, options=options)


def bradley_terry(data: PairwiseData, options: BTOptions | None = None) -> BTResult:
    """Fit, bootstrap and summarise one data set."""
    options = options or BTOptions()
    options.validate()
    if options.sampler == "python":
        samples = bootstrap_python(data, random.Random(options.seed), resamples=options.resamples,
                                   weighting=options.weighting, alpha=options.alpha, max_iter=options.max_iter,
                                   tol=options.tol)
        return summarize(data, samples, options)
    point = fit(data.expected_matrix(options.weighting), options.alpha, None, options.max_iter, options.tol)
    samples = bootstrap(data, resamples=options.resamples, seed=options.seed, weighting=options.weighting,
                        alpha=options.alpha, initial=point, max_iter=options.max_iter, tol=options.tol)
    return summarize(data, samples, options, point)


def rows_from_result(result: BTResult, matches: Iterable[MatchRecord],
                     pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    """Leaderboard rows (rank by interval separation) with match counts and W/D/L tallies."""
    rows = {a: LeaderboardRow(a, float(result.point[i]), float(result.lower[i]), float(result.upper[i]))
            for i, a in enumerate(result.agents)}
    tallied: dict[str, LeaderboardRow] = {}
    tally(matches, tallied, pool)
    for name, t in tallied.items():
        if name in rows:
            r = rows[name]
            r.matches, r.wins, r.draws, r.losses = t.matches, t.wins, t.draws, t.losses
    return rank_by_separation(list(rows.values()))


def bradley_terry_leaderboard(matches: Sequence[MatchRecord], options: BTOptions | None = None, *,
                              scoring: str = "rank", ties: str = "drop", pool: Iterable[str] | None = None,
                              agents: Sequence[str] | None = None) -> tuple[list[LeaderboardRow], BTResult]:
    """Bradley–Terry leaderboard of the given matches (one game, or pooled with `options.weighting`)."""
    matches = list(matches)
    data = pairwise_data(matches, agents=agents, scoring=scoring, ties=ties, pool=pool)
    result = bradley_terry(data, options)
    return rows_from_result(result, matches, pool), result


def win_probability(r_i: float, r_j: float, scale: float = 1.0) -> float:
    """P(i beats j) from two ratings on the given scale."""
    return 1.0 / (1.0 + np.exp(-(r_i - r_j) / scale))
