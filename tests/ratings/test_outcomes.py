"""Match records → sides, weighted pairwise comparisons and outcome classes."""

from __future__ import annotations

import numpy as np
import pytest

from arena_server.ratings.outcomes import comparisons, pairwise_data, pairwise_data_from_arrays, sides

from .helpers import record


def test_two_players_give_one_comparison_scored_by_rank_or_share():
    m = record("m", ["a", "b"], [3.0, 1.0])
    (c,) = comparisons(m)
    assert (c.a, c.b, c.score, c.weight) == ("a", "b", 1.0, 1.0)
    (c,) = comparisons(m, scoring="share")
    assert c.score == pytest.approx(0.75)
    (c,) = comparisons(record("d", ["a", "b"], [0.0, 0.0]))
    assert c.score == 0.5
    (c,) = comparisons(record("n", ["a", "b"], [-1.0, 1.0]), scoring="share")   # negative: by rank
    assert (c.a, c.score) == ("b", 1.0)


def test_n_players_are_broken_into_pairs_of_weight_one_over_k_minus_one():
    m = record("m", ["a", "b", "c", "d"], [4, 3, 3, 1])
    cs = comparisons(m)
    assert len(cs) == 6 and all(c.weight == pytest.approx(1 / 3) for c in cs)
    by_pair = {(c.a, c.b): c.score for c in cs}
    assert by_pair[("a", "b")] == 1.0 and by_pair[("b", "c")] == 0.5 and by_pair[("c", "d")] == 1.0
    per_agent = {}
    for c in cs:
        for name in (c.a, c.b):
            per_agent[name] = per_agent.get(name, 0.0) + c.weight
    assert all(v == pytest.approx(1.0) for v in per_agent.values())    # one comparison per agent per match


def test_team_games_give_one_comparison_per_match():
    # Undercover-like: four seats of one agent against one; a 2v2 with distinct agents.
    undercover = record("u", ["civ", "civ", "civ", "civ", "spy"], [1, 1, 1, 1, 0], teams=[0, 0, 0, 0, 1])
    (c,) = comparisons(undercover)
    assert (c.a, c.b, c.score, c.weight) == ("civ", "spy", 1.0, 1.0)
    two_v_two = record("t", ["a", "b", "c", "d"], [0, 0, 1, 1], teams=[0, 0, 1, 1])
    cs = comparisons(two_v_two)
    assert len(cs) == 4 and sum(c.weight for c in cs) == pytest.approx(1.0)
    assert all(c.a in "cd" and c.score == 1.0 for c in cs)
    assert [s.agents for s in sides(two_v_two)] == [("c", "d"), ("a", "b")]


def test_self_play_and_pool_filtering():
    assert comparisons(record("s", ["a", "a"], [1, 0])) == []
    m = record("m", ["a", "b", "c"], [3, 2, 1])
    assert {(c.a, c.b) for c in comparisons(m, pool=["a", "c"])} == {("a", "c")}
    assert comparisons(record("x", ["a", "b"], [1, 0]), pool=["a"]) == []


def test_pairwise_data_groups_matches_into_classes_and_keeps_dropped_ties_in_the_draw():
    ms = [record("1", ["a", "b"], [1, 0]), record("2", ["b", "a"], [0, 1]), record("3", ["a", "b"], [0.5, 0.5]),
          record("4", ["a", "c"], [0.3, 0.7], game="other")]
    d = pairwise_data(ms, scoring="share")
    assert d.agents == ["a", "b", "c"] and d.games == ["other", "tic_tac_toe"] and d.num_matches == 4
    assert d.num_classes == 3                            # a beats b (twice), a-b tie, a-c share
    s = d.matrix(np.bincount(d.match_class, minlength=d.num_classes).astype(float))
    assert s[0, 1] == 2 and s[1, 0] == 0 and s[0, 2] == pytest.approx(0.3) and s[2, 0] == pytest.approx(0.7)
    assert d.match_weights("game").sum() == pytest.approx(4)
    w = d.match_weights("game")
    assert w[3] == pytest.approx(3 * w[0])               # the lone "other" match weighs as much as 3 others
    half = pairwise_data(ms, scoring="share", ties="half")
    s = half.matrix(np.bincount(half.match_class, minlength=half.num_classes).astype(float))
    assert s[0, 1] == 2.5 and s[1, 0] == 0.5


def test_array_constructor_equals_the_record_path():
    rng = np.random.default_rng(3)
    n, m = 5, 400
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    score = rng.choice([0.0, 0.5, 1.0, 0.25], m)
    game = rng.integers(0, 2, m)
    agents, games = [f"p{i}" for i in range(n)], ["g0", "g1"]
    recs = [record(str(k), [agents[a[k]], agents[b[k]]], [score[k], 1 - score[k]], game=games[game[k]])
            for k in range(m)]
    for ties in ("drop", "half"):
        d1 = pairwise_data(recs, agents=agents, scoring="share", ties=ties)
        d2 = pairwise_data_from_arrays(agents, games, game, a, b, score, ties=ties)
        if ties == "half":                                # with ties dropped, the record path merges every tie
            assert d1.num_classes == d2.num_classes       # into one empty class; the draws are the same
        for weighting in ("game", "match"):
            np.testing.assert_allclose(d1.expected_matrix(weighting), d2.expected_matrix(weighting), atol=1e-12)
        idx = rng.integers(0, m, m)
        np.testing.assert_allclose(d1.match_matrix(idx), d2.match_matrix(idx), atol=1e-12)
