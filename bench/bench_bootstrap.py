"""Bootstrap of Bradley–Terry ratings: the arena's fast sampler against GameBench's straightforward one.

Data: one million two-agent match outcomes among 100 agents over 10 games of unequal sizes
(latent strengths ~ N(0, 1); 5 % draws, 5 % fractional scores in tenths, the rest wins drawn from
the Bradley–Terry model), pooled with GameBench's per-game weights 1/N_game.

- **arena** (`arena_server.ratings.bradley_terry`): the full-data fit, then 1,000 resamples; each
  resample is one multinomial draw of outcome-class counts and one weighted bincount for the
  comparison matrix; then one `choix.ilsr_pairwise_dense` fit per resample, warm-started from the
  full-data fit (with ≤ 64 agents the fits run batched instead).
- **naive peer** (GameBench's released approach): per resample,
  `random.choices(matches, weights=[1/N_game], k=len(matches))`, a Python loop over the drawn
  matches accumulating the score matrix (ties dropped, fractional wins), and
  `choix.ilsr_pairwise_dense` from zero. A naive resample takes seconds here, so by default a few
  are timed and the median is extrapolated linearly to 1,000 (`--naive-resamples 1000` runs them all).

Run: .venv/bin/python bench/bench_bootstrap.py   (options: --help)
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path

import choix
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_server.ratings.bradley_terry import BTOptions, bradley_terry, fit  # noqa: E402
from arena_server.ratings.outcomes import pairwise_data_from_arrays  # noqa: E402


def make_outcomes(n_agents: int, n_matches: int, n_games: int, seed: int):
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, 1.0, n_agents)
    share = rng.dirichlet(np.full(n_games, 2.0))
    game = rng.choice(n_games, size=n_matches, p=share)
    a = rng.integers(0, n_agents, n_matches)
    b = (a + rng.integers(1, n_agents, n_matches)) % n_agents
    p = 1.0 / (1.0 + np.exp(beta[b] - beta[a]))
    score = (rng.random(n_matches) < p).astype(float)
    kind = rng.random(n_matches)
    score[kind < 0.05] = 0.5
    frac = (kind >= 0.05) & (kind < 0.10)
    score[frac] = np.round(rng.beta(1 + 3 * p[frac], 1 + 3 * (1 - p[frac])) * 10) / 10
    return beta, game, a, b, score


def naive_resample(matches, weights, n_agents, rng: random.Random, alpha: float):
    """One resample the straightforward way (GameBench): draw matches, loop, fit."""
    sample = rng.choices(matches, weights=weights, k=len(matches))
    s = [[0.0] * n_agents for _ in range(n_agents)]
    for _, i, j, score in sample:
        if score == 0.5:
            continue
        s[i][j] += score
        s[j][i] += 1.0 - score
    s = np.array(s)
    return choix.ilsr_pairwise_dense(s, alpha=alpha), s, sample


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=100)
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3, help="timed runs of the arena bootstrap (median reported)")
    ap.add_argument("--naive-resamples", type=int, default=5,
                    help="naive resamples actually timed (median per resample × --resamples)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    alpha = 0.001

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, NumPy {np.__version__}, choix {version('choix')}")
    print(f"data: {args.matches:,} outcomes, {args.agents} agents, {args.games} games; per-game weights; "
          f"{args.resamples:,} resamples")
    beta, game, a, b, score = make_outcomes(args.agents, args.matches, args.games, args.seed)
    agents = [f"agent{i:03d}" for i in range(args.agents)]
    games = [f"game{g}" for g in range(args.games)]

    t = time.perf_counter()
    data = pairwise_data_from_arrays(agents, games, game, a, b, score, ties="drop")
    build = time.perf_counter() - t
    print(f"outcome classes: {data.num_classes:,} (built in {build:.2f} s, once per log)")

    # ---- arena ---------------------------------------------------------------------------------------
    # The same procedure as the peer (GameBench's: no prior, alpha 0.001, matches drawn in proportion
    # to their per-game weights), so that the ratio compares implementations, not statistics.
    options = BTOptions(resamples=args.resamples, seed=args.seed, weighting="game", prior=0.0, alpha=0.001,
                        sampler="multinomial")
    fast_times, result = [], None
    for _ in range(args.runs):
        t = time.perf_counter()
        result = bradley_terry(data, options)
        fast_times.append(time.perf_counter() - t)
    fast = statistics.median(fast_times)
    print(f"arena: {args.resamples:,} resamples in {fast:.2f} s (median of {args.runs}: "
          f"{', '.join(f'{x:.2f}' for x in fast_times)})")

    # Where the time goes, per resample: the multinomial draw, the bincount, the fit.
    k = min(args.resamples, 200)
    rng = np.random.default_rng(args.seed)
    p = data.class_probabilities("game")
    t0 = time.perf_counter()
    counts = rng.multinomial(data.num_matches, p, size=k).astype(float)
    t1 = time.perf_counter()
    mats = [data.matrix(c) for c in counts]
    t2 = time.perf_counter()
    for s in mats:
        fit(s, alpha, result.point)
    t3 = time.perf_counter()
    print(f"  per resample: draw {1e3 * (t1 - t0) / k:.2f} ms, matrix {1e3 * (t2 - t1) / k:.2f} ms, "
          f"fit {1e3 * (t3 - t2) / k:.2f} ms (from {k})")

    # ---- naive peer ------------------------------------------------------------------------------------
    matches = list(zip(game.tolist(), a.tolist(), b.tolist(), score.tolist()))
    per_game = np.bincount(game, minlength=args.games)
    weights = [1 / int(per_game[g]) for g in game.tolist()]
    prng = random.Random(args.seed)
    naive_times = []
    check = 0.0
    for r in range(args.naive_resamples):
        t = time.perf_counter()
        _, s, sample = naive_resample(matches, weights, args.agents, prng, alpha)
        naive_times.append(time.perf_counter() - t)
        if r == 0:   # the arena's matrix for the same drawn matches (same seed) must be the naive one
            drawn = random.Random(args.seed).choices(range(len(matches)), weights=weights, k=len(matches))
            check = float(np.abs(data.match_matrix(drawn) - s).max())
    per = statistics.median(naive_times)
    naive = per * args.resamples
    measured = "measured" if args.naive_resamples >= args.resamples else (
        f"extrapolated from the median of {args.naive_resamples} timed resamples")
    print(f"naive: {per:.2f} s per resample → {naive:,.0f} s per {args.resamples:,} ({measured}; "
          f"timed: {', '.join(f'{x:.2f}' for x in naive_times)})")
    print(f"check: arena and naive comparison matrices for the same draw agree to {check:.1e}")
    print(f"speed-up: {naive / fast:,.0f}× (naive {naive:,.0f} s / arena {fast:.2f} s)")
    corr = np.corrcoef(result.point, beta - beta.mean())[0, 1]
    print(f"sanity: correlation of fitted and latent strengths {corr:.4f}; median 90 % interval width "
          f"{np.median(result.upper - result.lower):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
