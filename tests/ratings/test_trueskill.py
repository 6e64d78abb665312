"""TrueSkill equals the `trueskill` library on the same sequence: two players, several players by
rank, teams, draws; the LLMArena preset; live updates; the order-robust mode."""

from __future__ import annotations

import numpy as np
import pytest
import trueskill

from arena_server.ratings import TRUESKILL_PRESETS, TrueSkillBoard, trueskill_leaderboard

from .helpers import record


def _sequence():
    return [
        record("1", ["a", "b"], [1, -1], ended=1),                                   # two players
        record("2", ["b", "a"], [0, 0], ended=2),                                    # draw
        record("3", ["a", "c", "b"], [5, 9, 1], ended=3),                            # multiplayer by rank
        record("4", ["a", "b", "c", "d"], [1, 1, 0, 0], teams=[0, 0, 1, 1], ended=4),  # 2 v 2
        record("5", ["c", "c", "c", "c", "d"], [1, 1, 1, 1, 0], teams=[0, 0, 0, 0, 1], ended=5),  # undercover-like
        record("6", ["d", "a", "c"], [2, 2, 0], ended=6),                            # shared first place
    ]


def _library(env, ranks_by_match):
    r = {n: env.create_rating() for n in "abcd"}
    for groups, ranks in ranks_by_match:
        updated = env.rate([tuple(r[n] for n in g) for g in groups], ranks=ranks)
        for g, new in zip(groups, updated):
            for n, rating in zip(g, new):
                r[n] = rating
    return r


LIBRARY_CALLS = [
    ([("a",), ("b",)], [1, 2]),
    ([("a",), ("b",)], [1, 1]),
    ([("c",), ("a",), ("b",)], [1, 2, 3]),
    ([("a", "b"), ("c", "d")], [1, 3]),
    ([("c",), ("d",)], [1, 5]),
    ([("d",), ("a",), ("c",)], [1, 1, 3]),          # sides in rank order, then seat order
]


def test_equals_the_library_on_the_same_sequence():
    env = trueskill.TrueSkill()
    expected = _library(env, LIBRARY_CALLS)
    rows = {r.agent_name: r for r in trueskill_leaderboard(_sequence())}
    for name, rating in expected.items():
        assert rows[name].rating == pytest.approx(rating.mu, abs=1e-9)
        assert rows[name].lower == pytest.approx(rating.mu - 3 * rating.sigma, abs=1e-9)
        assert rows[name].extra["sigma"] == pytest.approx(rating.sigma, abs=1e-9)
    assert [r.rank for r in trueskill_leaderboard(_sequence())] == [1, 2, 3, 4]
    # W/D/L by side: the 2v2 win counts for both teammates; a shared first place is a draw.
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses, rows["a"].matches) == (2, 2, 1, 5)
    assert (rows["d"].wins, rows["d"].draws, rows["d"].losses) == (0, 1, 2)


def test_llmarena_preset_is_winners_against_the_rest_reported_by_mu():
    settings = TRUESKILL_PRESETS["llmarena"]
    assert (settings.mu, settings.sigma, settings.beta, settings.tau, settings.draw_probability) == pytest.approx(
        (25, 25 / 3, 25 / 6, 25 / 300, 0.10))
    calls = [(g, [0 if r == min(ranks) else 1 for r in ranks]) for g, ranks in LIBRARY_CALLS]
    expected = _library(trueskill.TrueSkill(), calls)
    rows = trueskill_leaderboard(_sequence(), settings=settings)
    for row in rows:
        assert row.rating == pytest.approx(expected[row.agent_name].mu, abs=1e-9)
    assert [r.rating for r in rows] == sorted((r.rating for r in rows), reverse=True)


def test_live_updates_equal_a_replay():
    board = TrueSkillBoard()
    snapshots = []
    for m in _sequence():
        assert board.update(m)
        snapshots.append({r.agent_name: r.rating for r in board.rows()})
    assert not board.update(record("s", ["a", "a"], [1, 0]))                # self-play: no comparison
    for k, snap in enumerate(snapshots, start=1):
        assert snap == {r.agent_name: r.rating for r in trueskill_leaderboard(_sequence()[:k])}


def test_order_robust_mode_averages_seeded_random_orders():
    matches = [record(str(k), [w, l], [1, 0], ended=k)
               for k, (w, l) in enumerate([("a", "b"), ("b", "c"), ("a", "c"), ("c", "a"), ("a", "b"), ("b", "a")])]
    rows = {r.agent_name: r for r in trueskill_leaderboard(matches, orders=5, seed=11)}
    rng = np.random.default_rng(11)
    mus = {n: [] for n in "abc"}
    for _ in range(5):
        board = TrueSkillBoard()
        for k in rng.permutation(len(matches)):
            board.update(matches[k])
        for n in "abc":
            mus[n].append(board.ratings[n].mu)
    for n in "abc":
        assert rows[n].rating == pytest.approx(np.mean(mus[n]))
    assert trueskill_leaderboard(matches, orders=5, seed=11)[0].rating == \
        trueskill_leaderboard(matches, orders=5, seed=11)[0].rating
    # In log order, the last results weigh most; averaging orders removes that.
    in_order = {r.agent_name: r.rating for r in trueskill_leaderboard(matches)}
    assert in_order != {n: r.rating for n, r in rows.items()}
