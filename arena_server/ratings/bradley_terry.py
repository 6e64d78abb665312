"""Bradley–Terry ratings with bootstrap intervals: the canonical leaderboard.

Model: P(i beats j) = e^{β_i} / (e^{β_i} + e^{β_j}), natural-log strengths. The comparison matrix s
holds s[i, j] = score i earned against j (fractional scores are fractional wins), weighted per
match (`outcomes.PairwiseData.match_weights`: 1/N_game scaled to sum to the number of matches
when games are pooled with `weighting="game"`, 1 with `"match"`). Every fit is choix's ILSR
(`choix.ilsr_pairwise_dense`, or `fit_batch`, its iteration vectorised over resamples), whose fixed
point with regularisation α is the β with Σβ = 0 and, for w = n·softmax(β),
Σ_{j≠i} (w_j·s_ij − w_i·s_ji)/(w_i + w_j) = α·n·(w_i − 1) for every i.

Default (the arena's leaderboard)
---------------------------------
*Prior.* Each agent gets `prior` = a pseudo-wins and a pseudo-losses against a virtual reference
agent R of log-strength 0 (a = 1 by default), and α = 0. Because Bradley–Terry depends on
differences only, the maximum-likelihood fit of the data plus these pseudo-comparisons, read
relative to R, is exactly the MAP estimate under the independent priors
    p(β_i) ∝ σ(β_i)^a · σ(−β_i)^a,   i.e.  P(i beats R) = σ(β_i) ~ Beta(a, a)
(the "fictitious games against a fictitious team" of KRACH and of Whelan, *Prior distributions for
the Bradley–Terry model of paired comparisons*, 2017: pseudo-counts are the Beta prior's
conjugate form, and the fit stays choix's ILSR on one more row and column). a = 1 makes the win
probability against the reference uniform a priori: β_i is standard logistic (SD π/√3 ≈ 1.81;
90 % prior interval ±ln 19 ≈ ±2.94), weak next to any real record (2 pseudo-matches) but enough
to keep separated data finite: 5–0 gives a finite rating, 50–0 between two agents a gap of 4.15
(P(win) ≈ 0.984; Laplace's rule of succession gives 51/52 ≈ 0.981). Its logistic tails are exponential,
so unanimous data shift the posterior without ever squeezing it: for k–0 against one known
opponent the exact 90 % width tends to ln(ln 0.05 / ln 0.95) ≈ 4.07 as k grows.
Pooled games with per-game weights give a match of a small game a large weight (a game of 2
matches next to one of 313: each of its matches weighs ~79). The pseudo-comparisons of agent i
therefore weigh as much as a match of the most heavily weighted game i played
(`PairwiseData.agent_weights`), so 2 losses weighted ×79 meet a prior weighted ×79: the
prior-to-data ratio is the one the agent really has.

*Bootstrap.* B Bayesian-bootstrap resamples (Rubin 1981), `sampler="bayesian"`: in each, every
match gets an independent Exp(1) weight (times its match weight; a cell of k identical outcomes
gets Gamma(k, 1) at once) and every agent's a pseudo-wins and a pseudo-losses get independent
Gamma(a, 1) weights; each resample is the MAP fit of the reweighted data. This is the weighted
likelihood bootstrap of Newton & Raftery (1994) with the prior as pseudo-data reweighted like the
data ("randomised priors": Osband et al. 2018). For one agent whose only opponent is the
reference it is exact: its resampled P(beat R) = W/(W + L + E_1 + … + E_k) after k losses
(W, L ~ Gamma(a), E_i ~ Exp(1)) is distributed as the Beta(a, a + k) posterior. Two things are
needed, both measured (6 agents with strengths drawn from the prior, 100 tournaments each,
coverage of the 90 % intervals / median width; "prior fixed": the same prior, matches redrawn ∝
weight; "old": the previous default, GameBench's α 0.001 and draws ∝ weight, no prior):
    15 matches:  this 0.887 / 2.99;  prior fixed 0.58 / 1.56;  old 0.74 / 7.45
    40 matches:  this 0.880 / 1.95;  prior fixed 0.73 / 1.49;  old 0.67 / 5.23
   200 matches:  this 0.878 / 0.88;  prior fixed 0.85 / 0.87;  old 0.79 / 1.17
   3 games of 60, 10 and 3 matches pooled:  this 0.863 / 2.19;  prior fixed 0.36 / 0.67;  old 0.59 / 3.97
- the prior must be redrawn: with a fixed prior every resample of a 5–0 record gives nearly the
  same shrunk MAP, and the interval stays narrow (first alternative above);
- the matches must be reweighted, not redrawn ∝ weight: GameBench's draw of all N matches with
  probability ∝ 1/N_game puts ~N/G draws into a game of 2 matches, so every resample repeats those
  2 results ~N/(2G) times, and an agent who played only them gets an interval like
  [-10.87, -9.33] after 2 losses (the issue's [-7.52, -6.74]). Redrawing N_game matches within
  each game is not enough either: 2 losses redrawn are 2 losses in every resample, so only the
  prior varies and the interval comes out short on the data's side (in that example its upper
  end was 0.7 lower than the Bayesian bootstrap's, which is within 0.2 of the exact posterior's).
With much data the prior's share vanishes and this is the ordinary bootstrap: on 200,000 matches
among 100 agents its intervals equal the multinomial bootstrap's with per-match weights; with
per-game weights they are wider (0.19 against 0.12 median width, games of 1,172 to 41,557
matches), because a reweighted small game really does carry more noise into the pooled rating.

*Scale.* Ratings (the fit and every resample) are read against the information-weighted mean
agent: rating_i = β_i − Σ_j I_j β_j / Σ_j I_j, I_j = Σ_k n_jk p_jk (1 − p_jk) the Fisher
information of agent j's real (unweighted) comparisons at the fit. So the zero is set by the
agents the data pin down: a 2-match agent, or an unbeaten one whose upper side is open, cannot
drag everyone else's interval along (with a plain mean, its ±3 swings move every rating by ±3/n).
Then anchored and scaled as below.

*Rating* = the full-data fit (the posterior mode; `point="mle"`), or the mean of the resamples
(`point="mean"`). *Interval*: the percentile interval of the resamples at `level` (NumPy's linear
interpolation). *Rank* = 1 + the number of agents whose lower bound is above my upper bound
(agents whose intervals overlap share a rank, as on Chatbot Arena); rows with equal rank are
ordered by rating. With intervals that keep the prior's width for small records, a 5–0 newcomer
cannot be separated from a 121-6-1 regular over 128 matches that it never met, in either
direction: in the issue's example (`tests/ratings/helpers.newcomer_log`) both have rank 1 and
the newcomer is listed second, 1.46 [0.38, 4.70] against 4.12 [3.32, 5.84]; the old default listed
it first, 4.40 [2.98, 5.74] against 4.15 [2.48, 7.06].

*Provisional*: an agent with fewer than `board.PROVISIONAL_MATCHES` (10) matches with a
comparison in the selection; its rating rests mostly on the prior. The leaderboard marks it.

GameBench's procedure (presets `gamebench`, `gamebench_code`)
--------------------------------------------------------------
prior = 0, α = 0.001 (choix's regularisation, not a prior: separated data run off to ±7 and more),
all N matches drawn with probability ∝ 1/N_game, rating = mean of the resamples, mean-centred; as
the paper and its code run it, narrow intervals included:
- `"multinomial"`: one multinomial draw of outcome-class counts per resample, one weighted bincount
  for s (see `outcomes.PairwiseData`), fits warm-started from the full-data fit; no Python loop
  over matches;
- `"python"`: the authors' per-match recipe with Python's `random.Random.choices`, which
  reproduces GameBench's printed numbers exactly when driven in their call order
  (`gamebench.table2`). Slow on large logs.
With up to 64 agents the fits of a batch of resamples run together (`fit_batch`, agreeing with
`choix.ilsr_pairwise_dense` to ~1e-12); with more, one choix fit per resample.

Anchoring: rating = anchor_rating + scale·(β − β_anchor), applied to every resample (so the
anchor's interval is a point); without an anchor, anchor_rating + scale·β.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import choix
import numpy as np

from ..store import MatchRecord
from .board import LeaderboardRow, mark_provisional, rank_by_separation, tally
from .outcomes import PairwiseData, pairwise_data

SAMPLERS = ("bayesian", "multinomial", "python")
POINTS = ("mle", "mean")

#: Gamma draws of the prior's pseudo-comparisons are kept above this, so no resample puts an
#: agent beyond |β| ≈ 14 from the reference (probability ~1e-6 per draw for a = 1): it keeps the
#: ILSR chain well conditioned and changes no percentile.
PRIOR_FLOOR = 1e-6


@dataclass
class BTOptions:
    alpha: float = 0.0              # ILSR regularisation (GameBench: 0.001)
    prior: float = 1.0              # pseudo-wins = pseudo-losses per agent against the reference; 0: none
    resamples: int = 1000
    level: float = 0.90
    seed: int = 0
    weighting: str = "game"         # "game": 1/N_game per match; "match": uniform
    point: str = "mle"              # "mle" (the full-data fit: the posterior mode with a prior) | "mean"
    anchor: str | None = None
    anchor_rating: float = 0.0
    scale: float = 1.0
    sampler: str = "bayesian"       # "bayesian" | "multinomial" | "python"
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
        if not self.prior >= 0:
            raise ValueError("the prior's pseudo-comparisons must be >= 0")
        if self.sampler == "python" and self.prior:
            raise ValueError("the 'python' sampler is GameBench's procedure, which has no prior (set prior 0)")
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


def with_reference(s: np.ndarray, wins: np.ndarray, losses: np.ndarray) -> np.ndarray:
    """The matrix (or stack of matrices) s with one more agent, the virtual reference R (last):
    agent i earned wins[i] against R and R earned losses[i] against i."""
    s = np.asarray(s, dtype=float)
    n = s.shape[-1]
    out = np.zeros(s.shape[:-2] + (n + 1, n + 1))
    out[..., :n, :n] = s
    out[..., :n, n] = wins
    out[..., n, :n] = losses
    return out


def centre(beta: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """β minus its weighted mean over the last axis (the plain mean when all weights are 0)."""
    weights = np.asarray(weights, dtype=float)
    if weights.sum() <= 0:
        return beta - beta.mean(axis=-1, keepdims=True)
    return beta - (beta @ weights)[..., None] / weights.sum()


def information(s: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """(n,) Fisher information of each log-strength at β for the comparisons in s:
    Σ_j (s_ij + s_ji)·p_ij·(1 − p_ij) with p_ij = σ(β_i − β_j)."""
    p = 1.0 / (1.0 + np.exp(beta[None, :] - beta[:, None]))
    return ((s + s.T) * p * (1.0 - p)).sum(axis=1)


@dataclass
class Prior:
    """The prior of one data set: `a` pseudo-wins and pseudo-losses per agent against the
    reference, each weighing `scale[i]` (the largest weight among agent i's matches); ratings
    centred with `centre_weights` (the agents' Fisher information)."""

    a: float
    scale: np.ndarray
    centre_weights: np.ndarray

    def full(self) -> tuple[np.ndarray, np.ndarray]:
        """Pseudo-wins and pseudo-losses of the full-data fit."""
        return self.a * self.scale, self.a * self.scale

    def draw(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Pseudo-wins and pseudo-losses of `size` resamples: independent Gamma(a, 1) weights."""
        n = len(self.scale)
        wins = np.maximum(rng.gamma(self.a, size=(size, n)), PRIOR_FLOOR) * self.scale
        losses = np.maximum(rng.gamma(self.a, size=(size, n)), PRIOR_FLOOR) * self.scale
        return wins, losses

    def ratings(self, beta_aug: np.ndarray) -> np.ndarray:
        """Ratings from log-strengths of the augmented system: relative to R, then centred."""
        return centre(beta_aug[..., :-1] - beta_aug[..., -1:], self.centre_weights)


def fit_with_prior(data: PairwiseData, a: float, weighting: str = "game", alpha: float = 0.0, max_iter: int = 100,
                   tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray, Prior]:
    """(ratings, augmented log-strengths, prior) of the MAP fit of the weighted data under the
    prior with `a` pseudo-wins and pseudo-losses per agent. The centre weights are the agents'
    Fisher information at the fit, from their real (unweighted) matches."""
    prior = Prior(a, data.agent_weights(weighting), np.zeros(data.n))
    aug = fit(with_reference(data.expected_matrix(weighting), *prior.full()), alpha, None, max_iter, tol)
    relative = aug[:-1] - aug[-1]
    counts = data.matrix(np.bincount(data.match_class, minlength=data.num_classes).astype(float))
    prior.centre_weights = information(counts, relative)
    return prior.ratings(aug), aug, prior


def point_estimate(data: PairwiseData, options: BTOptions) -> tuple[np.ndarray, np.ndarray, Prior | None]:
    """(ratings, warm start for the resample fits, prior) of the full (weighted) data set: the MAP
    fit with a prior, choix's regularised fit without one."""
    if options.prior:
        return fit_with_prior(data, options.prior, options.weighting, options.alpha, options.max_iter, options.tol)
    beta = fit(data.expected_matrix(options.weighting), options.alpha, None, options.max_iter, options.tol)
    return beta, beta, None


def _bayesian_counts(rng: np.random.Generator, cells, num_classes: int, size: int) -> np.ndarray:
    """Weighted class counts of `size` resamples: every match gets an independent Exp(1) weight
    (times its match weight), so a cell of k matches gets Gamma(k, 1)."""
    count, weight, starts = cells
    if count.size == 0:
        return np.zeros((size, num_classes))
    draws = rng.gamma(count, size=(size, count.size)) * weight
    return np.add.reduceat(draws, starts, axis=1)


def bootstrap(data: PairwiseData, *, resamples: int = 1000, seed: int = 0, weighting: str = "game",
              alpha: float = 0.001, initial: np.ndarray | None = None, max_iter: int = 100,
              tol: float = 1e-8, prior: Prior | float = 0.0, sampler: str = "multinomial") -> np.ndarray:
    """(resamples, n) log-strengths (ratings before anchoring) of resamples of the matches:
    class counts from multinomial draws (all matches ∝ weight, `"multinomial"`) or independent
    Exp(1) weights per match (`"bayesian"`), s by one weighted bincount, fits batched. With a
    prior (a `Prior`, or its a > 0) the prior's pseudo-comparisons are redrawn in every resample
    and the fit is the MAP one (`initial`, if given, is then the augmented warm start)."""
    rng = np.random.default_rng(seed)
    n, m = data.n, data.num_matches
    out = np.empty((resamples, n))
    if m == 0 and not isinstance(prior, Prior) and not prior:
        out[:] = 0.0
        return out
    if sampler not in ("multinomial", "bayesian"):
        raise ValueError(f"unknown sampler {sampler!r} for the fast bootstrap")
    p = data.class_probabilities(weighting) if m and sampler == "multinomial" else None
    cells = data.cells(weighting) if sampler == "bayesian" else None
    if isinstance(prior, Prior):
        the_prior = prior
    else:
        the_prior = fit_with_prior(data, prior, weighting, alpha, max_iter, tol)[2] if prior else None
    size_n = n + 1 if the_prior is not None else n
    step = _chunk(size_n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        if m == 0:
            counts = np.zeros((size, data.num_classes))
        elif cells is not None:
            counts = _bayesian_counts(rng, cells, data.num_classes, size)
        else:
            counts = rng.multinomial(m, p, size=size).astype(float)
        if the_prior is None:
            if n > BATCH_MAX_AGENTS:
                for k, c in enumerate(counts):
                    out[start + k] = fit(data.matrix(c), alpha, initial, max_iter, tol)
            else:
                mats = np.stack([data.matrix(c) for c in counts])
                out[start:start + size] = fit_batch(mats, alpha, initial, max_iter, tol)
            continue
        wins, losses = the_prior.draw(rng, size)
        mats = with_reference(np.stack([data.matrix(c) for c in counts]), wins, losses)
        if size_n > BATCH_MAX_AGENTS:
            aug = np.stack([fit(mat, alpha, initial, max_iter, tol) for mat in mats])
        else:
            aug = fit_batch(mats, alpha, initial, max_iter, tol)
        out[start:start + size] = the_prior.ratings(aug)
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
            point = point_estimate(data, options)[0]
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
    point, warm, prior = point_estimate(data, options)
    samples = bootstrap(data, resamples=options.resamples, seed=options.seed, weighting=options.weighting,
                        alpha=options.alpha, initial=warm, max_iter=options.max_iter, tol=options.tol,
                        prior=prior if prior is not None else 0.0, sampler=options.sampler)
    return summarize(data, samples, options, point)


def rows_from_result(result: BTResult, matches: Iterable[MatchRecord],
                     pool: Iterable[str] | None = None) -> list[LeaderboardRow]:
    """Leaderboard rows (rank by interval separation) with match counts, W/D/L tallies and the
    provisional mark."""
    rows = {a: LeaderboardRow(a, float(result.point[i]), float(result.lower[i]), float(result.upper[i]))
            for i, a in enumerate(result.agents)}
    tallied: dict[str, LeaderboardRow] = {}
    tally(matches, tallied, pool)
    for name, t in tallied.items():
        if name in rows:
            r = rows[name]
            r.matches, r.wins, r.draws, r.losses = t.matches, t.wins, t.draws, t.losses
    return rank_by_separation(mark_provisional(list(rows.values())))


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
