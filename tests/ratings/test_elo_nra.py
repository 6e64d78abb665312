"""Elo and GTBench's NRA on hand-worked examples."""

from __future__ import annotations

import pytest

from arena_server.ratings import EloOptions, elo_leaderboard, nra, nra_leaderboard, nra_table
from arena_server.ratings.elo import EloBoard

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
    assert rows["A"].lower == rows["A"].upper == rows["A"].rating


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
