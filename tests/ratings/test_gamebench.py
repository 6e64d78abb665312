"""GameBench's published ratings from its released matches (tests/data/gamebench, CC-BY 4.0).

Tolerances are those of the data's README: the seeded replication of the authors' procedure must
hit every printed Table 2 value within 0.005; an independent RNG at B = 10,000 must land within
0.02 of the paper overall (gpt-4-rap 0.03, human 0.05), within 0.25 per game, and its CI endpoints
within 0.06 of the reference (human upper bound 0.2); Table 3 is deterministic (±0.005).
"""

from __future__ import annotations

import numpy as np
import pytest

from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.ratings.gamebench import average_scores, table2, win_matrix

from .helpers import gamebench_expected, gamebench_records


@pytest.fixture(scope="module")
def expected():
    return gamebench_expected()


@pytest.fixture(scope="module")
def records():
    return gamebench_records()


def test_the_data_is_the_released_data(records):
    assert len(records) == 277
    assert sum(r.result["returns"][0] == r.result["returns"][1] for r in records) == 18
    counts = {}
    for r in records:
        counts[r.game_id] = counts.get(r.game_id, 0) + 1
    assert counts == {"air_land_sea": 18, "arctic_scavengers": 27, "are_you_the_traitor": 39, "codenames": 41,
                      "hive": 21, "pit": 17, "santorini": 25, "two_rooms_and_a_boom": 40, "sea_battle": 49}


def test_exact_seeded_replication_reproduces_all_70_printed_values(records, expected):
    t = table2(records, exact=True, agents=expected["agents"])
    deviations = []
    for i, agent in enumerate(t.agents):
        deviations.append(abs(t.overall.point[i] - expected["overall"][agent]["paper"]))
        exact = expected["overall"][agent]["exact_replication_B1000"]
        assert t.overall.point[i] == pytest.approx(exact["mean"], abs=6e-5)
        assert [t.overall.lower[i], t.overall.upper[i]] == pytest.approx(exact["ci90"], abs=6e-4)
        for game, result in t.per_game.items():
            cell = expected["per_game"][game][agent]
            deviations.append(abs(result.point[i] - cell["paper"]))
            assert result.point[i] == pytest.approx(cell["exact_replication_B1000"], abs=6e-5)
            assert (agent in t.played[game]) == cell["played"]
    assert len(deviations) == 70
    assert max(deviations) <= 0.005


def test_independent_rng_at_ten_thousand_resamples_is_within_the_readme_tolerances(records, expected):
    t = table2(records, exact=False, resamples=10_000, seed=2024, agents=expected["agents"])
    for i, agent in enumerate(t.agents):
        tol = {"gpt-4-rap": 0.03, "human": 0.05}.get(agent, 0.02)
        assert t.overall.point[i] == pytest.approx(expected["overall"][agent]["paper"], abs=tol), agent
        ref = expected["overall"][agent]["reference_100k"]["ci90"]
        assert t.overall.lower[i] == pytest.approx(ref[0], abs=0.06), agent
        assert t.overall.upper[i] == pytest.approx(ref[1], abs=0.2 if agent == "human" else 0.06), agent
        for game, result in t.per_game.items():
            assert result.point[i] == pytest.approx(expected["per_game"][game][agent]["paper"], abs=0.25), (game, agent)


def test_any_seed_at_one_thousand_resamples_is_within_the_readme_tolerances(records, expected):
    for seed in range(10):      # GameBench's procedure (no prior, α 0.001, draws ∝ 1/N_game), not the default
        query = LeaderboardQuery(method="bradley_terry", scoring="share", ties="drop",
                                 bt=BTOptions(seed=seed, resamples=1000, point="mean", prior=0.0, alpha=0.001,
                                              sampler="multinomial"))
        board = compute_leaderboard(records, query)
        got = {r.agent_name: r.rating for r in board.rows}
        for agent, value in got.items():
            tol = {"gpt-4-rap": 0.08, "human": 0.12}.get(agent, 0.04)
            assert value == pytest.approx(expected["overall"][agent]["paper"], abs=tol), (seed, agent)


def test_preset_gamebench_code_gives_the_printed_table_through_the_leaderboard_api(records, expected):
    overall = compute_leaderboard(records, LeaderboardQuery(preset="gamebench_code"))
    assert overall.resamples == 1000 and overall.level == pytest.approx(0.9)
    for row in overall.rows:
        assert row.rating == pytest.approx(expected["overall"][row.agent_name]["paper"], abs=0.005)
    sea_battle = compute_leaderboard(records, LeaderboardQuery(preset="gamebench_code", game_id="sea_battle"))
    for row in sea_battle.rows:
        cell = expected["per_game"]["sea_battle"][row.agent_name]
        assert row.rating == pytest.approx(cell["paper"], abs=0.005)
        assert (row.matches > 0) == cell["played"]


def test_average_scores_equal_table_3(records):
    table3 = {  # corrected labels (data README); None = N/A
        "random": [0.49, 0.18, 0.52, 0.25, 0.56, 0.50, 0.58, 0.41, 0.60, 0.72],
        "human": [0.85, None, None, None, 0.43, 1.00, 0.78, 1.00, None, 1.00],
        "gpt-3": [0.48, 0.63, 0.27, 0.43, 0.47, 0.50, 0.40, 0.80, 0.43, 0.64],
        "gpt-3-cot": [0.60, 0.89, 0.33, 0.93, 0.61, 0.50, 0.55, 0.60, 0.50, 0.43],
        "gpt-4": [0.31, 0.83, 0.71, 0.33, 0.42, 0.31, 0.20, 0.33, 0.42, 0.00],
        "gpt-4-cot": [0.60, 1.00, 0.75, 0.64, 0.37, 0.50, 0.51, 0.50, 0.50, 0.81],
        "gpt-4-rap": [0.62, None, 1.00, 1.00, 0.58, None, 0.26, 0.50, 0.33, None],
    }
    columns = ["overall", "air_land_sea", "arctic_scavengers", "are_you_the_traitor", "codenames", "hive", "pit",
               "santorini", "two_rooms_and_a_boom", "sea_battle"]
    got = average_scores(records)
    for agent, values in table3.items():
        for column, value in zip(columns, values):
            if value is None:
                assert column not in got[agent]
            else:
                assert got[agent][column][0] == pytest.approx(value, abs=0.005), (agent, column)
    board = compute_leaderboard(records, LeaderboardQuery(method="suite_score", suite="gamebench"))
    assert board.rows[0].agent_name == "human" and board.rows[0].rating == pytest.approx(0.85, abs=0.005)


def test_win_probabilities_from_the_mean_ratings(records, expected):
    t = table2(records, exact=True, agents=expected["agents"])
    p = win_matrix(t.overall)
    idx = {a: i for i, a in enumerate(t.agents)}
    assert p[idx["human"], idx["gpt-4"]] == pytest.approx(0.93, abs=0.005)
    assert p[idx["gpt-4-cot"], idx["random"]] == pytest.approx(0.66, abs=0.005)
    np.testing.assert_allclose(p + p.T, 1.0)


def test_our_matches_export_in_gamebench_format_and_round_trip(records):
    import json

    from arena_server.ratings.gamebench import gamebench_entries, records_from_gamebench

    from .helpers import DATA, record

    released = json.loads((DATA / "matches.json").read_text())
    assert gamebench_entries(records) == released                    # the released file, entry for entry
    ours = [record("a", ["gpt-x", "random"], [30.0, 10.0], game="pit"),                 # points share 0.75
            record("b", ["random", "gpt-x"], [1.0, 1.0], game="hive"),                  # a draw, 0.5 each
            record("c", ["gpt-x", "gpt-x"], [1.0, 0.0], game="santorini"),              # self-play: no form
            record("d", ["gpt-x", "random", "other"], [1.0, 0.0, 0.0], game="pit")]     # three sides: none
    assert gamebench_entries(ours) == [{"game": "pit", "gpt-x": 0.75, "random": 0.25},
                                       {"game": "hive", "random": 0.5, "gpt-x": 0.5}]
    # Ours and theirs rate in one pool: the union's Table 2 has every agent of both.
    union = records_from_gamebench(released + gamebench_entries(ours))
    rated = table2(union, resamples=200).agents
    assert "gpt-x" in rated and {"gpt-4", "random"} <= set(rated)
