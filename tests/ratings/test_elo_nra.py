"""Elo (with its bootstrap interval) and GTBench's NRA on hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from arena_server.ratings import EloOptions, LeaderboardQuery, compute_leaderboard, elo_leaderboard, nra, nra_leaderboard, nra_table
from arena_server.ratings.elo import EloBoard, bootstrap_elo, expected_score

from .helpers import record


def test_elo_two_matches_by_hand():
    # A (1500) beats B (1500): E = 0.5, A +16, B −16. Then B beats A:
    # E_B = 1/(1 + 10^((1516 − 1484)/400)) = 0.454078..., B += 32·0.545922 = 17.4695.
    ms = [record("1", ["A", "B"], [1, 0]), record("2", ["A", "B"], [0, 1])]
    rows = {r.agent_name: r for r in elo_leaderboard(ms)}
    e_b = 1 / (1 + 10 ** (32 / 400))
    assert e_b == pytest.approx(0.454078, abs=1e-6)
    assert rows["B"].rating == pytest.approx(1484 + 32 * (1 - e_b))
    assert rows["A"].rating == pytest.approx(1516 - 32 * (1 - e_b))
    assert rows["A"].rating == pytest.approx(1498.5305, abs=1e-4)
    no_interval = {r.agent_name: r for r in elo_leaderboard(ms, EloOptions(resamples=0))}
    assert no_interval["A"].rating == rows["A"].rating
    assert no_interval["A"].lower == no_interval["A"].upper == no_interval["A"].rating
    # A resample of two matches is AA, AB, BA or BB (A = A won): A ends at 1500 ± 16 ± 16-ish, so the
    # 95 % interval spans from two losses to two wins.
    assert rows["A"].lower == pytest.approx(1500 - 16 - 32 * expected_score(1484, 1516))
    assert rows["A"].upper == pytest.approx(1500 + 16 + 32 * (1 - expected_score(1516, 1484)))


def test_elo_draws_k_factor_initial_and_multiplayer():
    draw = [record("1", ["A", "B"], [0, 0])]
    board = EloBoard(EloOptions(k_factor=20, initial=1000))
    board.rating("A")
    board.ratings["A"] = 1100.0
    board.update(draw[0])
    e_a = 1 / (1 + 10 ** (-100 / 400))                                  # 0.640065
    assert board.rating("A") == pytest.approx(1100 + 20 * (0.5 - e_a))   # 1097.20
    assert board.rating("B") == pytest.approx(1000 - 20 * (0.5 - e_a))
    skipped = elo_leaderboard(draw, EloOptions(ties="drop"))
    assert all(r.rating == 1500 for r in skipped)
    # Three players ranked 1, 2, 3 from equal ratings: pairs weigh 1/2 each, simultaneous update.
    rows = {r.agent_name: r.rating for r in elo_leaderboard([record("m", ["x", "y", "z"], [3, 2, 1])])}
    assert rows == pytest.approx({"x": 1516.0, "y": 1500.0, "z": 1484.0})


def test_nra_formula_by_hand():
    assert nra([1] * 30 + [0] * 5 + [-1] * 15, [-1] * 30 + [0] * 5 + [1] * 15) == pytest.approx(15 / 45)
    assert nra([3, -1, 2], [-3, 1, -2]) == pytest.approx(8 / 12)
    assert nra([3, -1, 2], [-3, 1, -2], variant="abs_sum") == pytest.approx(1.0)
    assert nra([0, 0], [0, 0]) == 0.0
    assert nra([2.0, 1.0], [1.0, 0.0]) == pytest.approx(2 / 4)      # general-sum: (3 − 1)/(3 + 1)


def test_nra_per_pairing_and_game_and_its_leaderboard():
    ms = []
    # tic_tac_toe (beat the opponent): llm vs mcts 1 win, 1 draw, 3 losses → (1 − 3)/(1 + 3) = −0.5
    for k, r in enumerate([(1, -1), (0, 0), (-1, 1), (-1, 1), (-1, 1)]):
        ms.append(record(f"t{k}", ["llm", "mcts"] if k % 2 else ["mcts", "llm"], r if k % 2 else r[::-1]))
    # kuhn_poker (earn rewards): llm earns 2, −1, 1 against mcts → (2 − (−2))/(4 + 4) = 0.5
    for k, r in enumerate([2, -1, 1]):
        ms.append(record(f"k{k}", ["llm", "mcts"], [r, -r], game="kuhn_poker"))
    # llm vs random in tic_tac_toe: 2 wins → 1.0
    ms += [record(f"r{k}", ["llm", "random"], [1, -1]) for k in range(2)]
    table = nra_table(ms)
    assert table[("tic_tac_toe", "llm", "mcts")].nra == pytest.approx(-0.5)
    assert table[("tic_tac_toe", "mcts", "llm")].nra == pytest.approx(0.5)
    assert table[("tic_tac_toe", "llm", "mcts")].matches == 5
    assert table[("kuhn_poker", "llm", "mcts")].nra == pytest.approx(0.5)
    vs_mcts = {r.agent_name: r for r in nra_leaderboard(ms, opponent="mcts")}
    assert vs_mcts["llm"].rating == pytest.approx((-0.5 + 0.5) / 2)    # unweighted mean over games
    assert vs_mcts["llm"].extra == {"kuhn_poker": pytest.approx(0.5), "tic_tac_toe": pytest.approx(-0.5)}
    assert "mcts" not in vs_mcts and "random" not in vs_mcts
    overall = {r.agent_name: r.rating for r in nra_leaderboard(ms)}
    # llm in tic_tac_toe: mean of −0.5 (mcts) and 1.0 (random) = 0.25; kuhn 0.5 → 0.375
    assert overall["llm"] == pytest.approx(0.375)
    assert overall["random"] == pytest.approx(-1.0)


def _elo_by_hand(matches, drawn, options):
    """Chatbot Arena's procedure written plainly: replay the drawn matches in order from the initial ratings."""
    board = EloBoard(options)
    for k in drawn:
        board.update(matches[k])
    return board


def test_elo_bootstrap_is_the_plain_replay_of_resampled_logs():
    rng = np.random.default_rng(3)
    names = ["a", "b", "c", "d"]
    ms = []
    for k in range(40):                                        # two-player, three-player and a draw or two
        i, j = rng.choice(4, 2, replace=False)
        returns = [1, 0] if rng.random() < 0.6 else [0, 1] if rng.random() < 0.8 else [0, 0]
        ms.append(record(f"m{k}", [names[i], names[j]], returns, ended=k))
    ms.append(record("x", ["a", "b", "c"], [3, 1, 2], ended=41))
    options = EloOptions(resamples=25, seed=11, k_factor=24)
    agents, samples = bootstrap_elo(ms, options)
    # The same draws as the vectorised bootstrap: at step t, one index per resample.
    draws = np.random.default_rng(11).integers(0, len(ms), size=(len(ms), 25)).T
    for b in range(25):
        board = _elo_by_hand(ms, draws[b], options)
        np.testing.assert_allclose(samples[b], [board.rating(a) for a in agents], atol=1e-9)
    rows = {r.agent_name: r for r in elo_leaderboard(ms, options)}
    for i, a in enumerate(agents):
        lo, med, hi = np.percentile(samples[:, i], [2.5, 50, 97.5])
        assert (rows[a].lower, rows[a].extra["bootstrap_median"], rows[a].upper) == pytest.approx((lo, med, hi))


def test_elo_interval_narrows_with_more_matches_and_separates_a_clear_winner():
    def log(rounds):
        ms = []
        for k in range(rounds):                                 # strong wins 80 %, the others split evenly
            ms.append(record(f"s{k}", ["strong", "mid"], [1, 0] if k % 5 else [0, 1], ended=3 * k))
            ms.append(record(f"w{k}", ["strong", "weak"], [1, 0] if k % 5 else [0, 1], ended=3 * k + 1))
            ms.append(record(f"e{k}", ["mid", "weak"], [1, 0] if k % 2 else [0, 1], ended=3 * k + 2))
        return ms

    small = {r.agent_name: r for r in elo_leaderboard(log(5), EloOptions(resamples=300))}
    large = {r.agent_name: r for r in elo_leaderboard(log(80), EloOptions(resamples=300, k_factor=8))}
    assert large["strong"].lower > max(large["mid"].upper, large["weak"].upper)
    assert small["strong"].lower < max(small["mid"].upper, small["weak"].upper)


def test_elo_and_nra_boards_say_whether_they_have_an_interval():
    ms = [record(f"m{k}", ["a", "b"], [1, 0] if k % 3 else [0, 1], ended=k) for k in range(12)]
    elo = compute_leaderboard(ms, LeaderboardQuery(method="elo"))
    assert elo.has_interval and elo.level == pytest.approx(0.95) and elo.resamples == 1000
    assert all(r.lower < r.upper for r in elo.rows) and "Chatbot Arena" in elo.description
    none = compute_leaderboard(ms, LeaderboardQuery(method="elo", elo=EloOptions(resamples=0)))
    assert not none.has_interval and none.level == 0 and all(r.lower == r.upper == r.rating for r in none.rows)
    nra_board = compute_leaderboard(ms, LeaderboardQuery(method="nra"))
    assert not nra_board.has_interval and "no interval" in nra_board.description
    assert compute_leaderboard(ms, LeaderboardQuery()).has_interval           # TrueSkill: μ ± 3σ
