"""Bradley–Terry: the fit, the fast bootstrap, intervals, anchoring and separation ranks."""

from __future__ import annotations

import choix
import numpy as np
import pytest

from arena_server.ratings import BTOptions, bradley_terry, bradley_terry_leaderboard, fit, fit_batch, pairwise_data
from arena_server.ratings.bradley_terry import bootstrap, centre, point_estimate
from arena_server.ratings.outcomes import pairwise_data_from_arrays

from .helpers import record


def _synthetic(seed: int, beta: np.ndarray, matches: int, games: int = 1):
    """Two-player matches between uniformly random pairs, outcomes drawn from the BT model."""
    rng = np.random.default_rng(seed)
    n = len(beta)
    a = rng.integers(0, n, matches)
    b = (a + rng.integers(1, n, matches)) % n
    p = 1.0 / (1.0 + np.exp(beta[b] - beta[a]))
    score = (rng.random(matches) < p).astype(float)
    game = rng.integers(0, games, matches)
    return a, b, score, game


def _fixed_point_residual(beta: np.ndarray, s: np.ndarray, alpha: float) -> float:
    """The README's characterisation: Σβ = 0 and Σ_j (w_j s_ij − w_i s_ji)/(w_i + w_j) = α n (w_i − 1)."""
    n = len(beta)
    w = n * np.exp(beta) / np.exp(beta).sum()
    lhs = ((w[None, :] * s - w[:, None] * s.T) / (w[:, None] + w[None, :])).sum(axis=1)
    return max(abs(beta.sum()), np.abs(lhs - alpha * n * (w - 1)).max())


def test_fit_is_choix_and_satisfies_the_fixed_point_equation():
    rng = np.random.default_rng(0)
    for n in (2, 3, 7, 30):
        s = rng.poisson(3.0, (n, n)).astype(float) * rng.random((n, n))
        np.fill_diagonal(s, 0)
        beta = fit(s, alpha=0.001)
        np.testing.assert_allclose(beta, choix.ilsr_pairwise_dense(s, alpha=0.001), atol=1e-12)
        assert _fixed_point_residual(beta, s, 0.001) < 1e-6


def test_batched_fit_agrees_with_choix_on_every_matrix():
    rng = np.random.default_rng(1)
    n, b = 9, 300
    s = rng.poisson(2.0, (b, n, n)).astype(float)
    s[:, 0, :] = 0.0                                     # agent 0 never wins: only α keeps it finite
    s[:, np.arange(n), np.arange(n)] = 0
    batched = fit_batch(s, alpha=0.001)
    one_by_one = np.array([choix.ilsr_pairwise_dense(m, alpha=0.001) for m in s])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-9)
    warm = fit_batch(s, alpha=0.001, initial=one_by_one.mean(axis=0))
    np.testing.assert_allclose(warm, one_by_one, atol=1e-6)


def test_unregularised_fit_of_a_disconnected_graph_is_refused():
    s = np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    with pytest.raises(ValueError, match="connected"):
        fit(s, alpha=0.0)
    assert np.isfinite(fit(s, alpha=0.001)).all()


def test_recovers_the_order_of_known_strengths():
    beta = np.linspace(-1.5, 1.5, 8)
    a, b, score, game = _synthetic(7, beta, 4000, games=3)
    agents = [f"agent{i}" for i in range(8)]
    recs = [record(f"m{k}", [agents[a[k]], agents[b[k]]], [score[k], 1 - score[k]], game=f"g{game[k]}", ended=k)
            for k in range(len(a))]
    rows, result = bradley_terry_leaderboard(recs, BTOptions(resamples=300, seed=1))
    assert [r.agent_name for r in sorted(rows, key=lambda r: -r.rating)] == agents[::-1]
    np.testing.assert_allclose(result.point, beta - beta.mean(), atol=0.15)
    assert rows[0].agent_name == "agent7" and rows[0].rank == 1 and rows[-1].rank > 1
    assert all(r.lower <= r.rating <= r.upper for r in rows)
    assert sum(r.matches for r in rows) == 2 * len(recs)


@pytest.mark.parametrize("level", [0.90, 0.95])
def test_intervals_cover_the_truth_at_about_the_nominal_rate(level):
    beta = np.linspace(-1.0, 1.0, 6)
    beta -= beta.mean()
    agents = [f"a{i}" for i in range(6)]
    hits = []
    for seed in range(200):
        a, b, score, game = _synthetic(10_000 + seed, beta, 600)
        data = pairwise_data_from_arrays(agents, ["g"], game, a, b, score)
        options = BTOptions(resamples=400, seed=seed, level=level, weighting="match")
        r = bradley_terry(data, options)
        truth = centre(beta, point_estimate(data, options)[2].centre_weights)    # in the ratings' frame
        hits.append((r.lower <= truth) & (truth <= r.upper))
    coverage = np.mean(hits)
    # 1,200 intervals: sampling SD about 0.01 at 0.9; the percentile bootstrap runs slightly narrow.
    assert level - 0.04 <= coverage <= level + 0.03, coverage


def test_seeded_bootstrap_is_reproducible_and_matches_its_expectation():
    beta = np.array([0.0, 0.5, 1.0])
    a, b, score, game = _synthetic(2, beta, 300, games=2)
    data = pairwise_data_from_arrays(["x", "y", "z"], ["g0", "g1"], game, a, b, score)
    one = bootstrap(data, resamples=50, seed=5)
    np.testing.assert_array_equal(one, bootstrap(data, resamples=50, seed=5))
    assert not np.array_equal(one, bootstrap(data, resamples=50, seed=6))
    # The mean resample matrix is the weighted full-data matrix.
    rng = np.random.default_rng(0)
    p = data.class_probabilities("game")
    mean = np.mean([data.matrix(rng.multinomial(data.num_matches, p).astype(float)) for _ in range(4000)], axis=0)
    np.testing.assert_allclose(mean, data.expected_matrix("game"), rtol=0.03, atol=0.3)


def test_anchor_and_scale():
    beta = np.array([-1.0, 0.0, 1.0])
    a, b, score, game = _synthetic(4, beta, 900)
    data = pairwise_data_from_arrays(["low", "mid", "high"], ["g"], game, a, b, score)
    plain = bradley_terry(data, BTOptions(resamples=100, seed=3))
    scale = 400 / np.log(10)
    anchored = bradley_terry(data, BTOptions(resamples=100, seed=3, anchor="mid", anchor_rating=1000, scale=scale))
    np.testing.assert_allclose(anchored.point, 1000 + scale * (plain.point - plain.point[1]))
    assert anchored.lower[1] == anchored.upper[1] == 1000          # the anchor is fixed in every resample
    assert anchored.point[2] - anchored.point[0] == pytest.approx(scale * (plain.point[2] - plain.point[0]))
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(data, BTOptions(resamples=10, anchor="nobody"))


def test_rank_is_one_plus_the_agents_clearly_above():
    # a >> b ≈ c >> d: b and c overlap and share rank 2.
    recs, k = [], 0
    for winner, loser, times in (("a", "b", 40), ("a", "c", 40), ("b", "c", 20), ("c", "b", 20), ("b", "d", 40),
                                 ("c", "d", 40), ("a", "d", 40), ("b", "a", 4), ("c", "a", 4), ("d", "c", 4),
                                 ("d", "b", 4)):
        for _ in range(times):
            recs.append(record(f"m{k}", [winner, loser], [1, 0], ended=k))
            k += 1
    rows, _ = bradley_terry_leaderboard(recs, BTOptions(resamples=300, seed=0))
    ranks = {r.agent_name: r.rank for r in rows}
    assert ranks == {"a": 1, "b": 2, "c": 2, "d": 4}
    for r in rows:
        assert r.rank == 1 + sum(o.lower > r.upper for o in rows)


def test_ties_dropped_or_halved_and_point_mean_option():
    recs = [record("1", ["a", "b"], [1, 0]), record("2", ["a", "b"], [0, 1]), record("3", ["a", "b"], [1, 0])]
    recs += [record(f"t{i}", ["a", "b"], [0, 0]) for i in range(6)]
    drop = pairwise_data(recs, ties="drop")
    half = pairwise_data(recs, ties="half")
    bd = fit(drop.expected_matrix("match"), 0.0)
    bh = fit(half.expected_matrix("match"), 0.0)
    assert bd[0] - bd[1] == pytest.approx(np.log(2))                 # 2 wins to 1
    assert bh[0] - bh[1] == pytest.approx(np.log(5 / 4))             # 2 + 3 halves to 1 + 3 halves
    r = bradley_terry(drop, BTOptions(resamples=200, point="mean", weighting="match"))
    assert r.point == pytest.approx(r.samples.mean(axis=0))


def test_batched_and_one_by_one_bootstraps_agree(monkeypatch):
    import importlib

    bt_module = importlib.import_module("arena_server.ratings.bradley_terry")   # the module, not the function

    beta = np.linspace(-1, 1, 12)
    a, b, score, game = _synthetic(8, beta, 2000, games=3)
    data = pairwise_data_from_arrays([f"p{i}" for i in range(12)], ["x", "y", "z"], game, a, b, score)
    for kwargs in (dict(), dict(prior=1.0, alpha=0.0, sampler="bayesian")):
        monkeypatch.setattr(bt_module, "BATCH_MAX_AGENTS", 1000)
        batched = bootstrap(data, resamples=60, seed=2, **kwargs)
        monkeypatch.setattr(bt_module, "BATCH_MAX_AGENTS", 0)
        one_by_one = bootstrap(data, resamples=60, seed=2, **kwargs)
        np.testing.assert_allclose(batched, one_by_one, atol=1e-7)
