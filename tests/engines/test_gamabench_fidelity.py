"""Fidelity to GAMA-Bench's released Guess-2/3 runs (GPL-3.0 data, read in place, never copied).

The data lives in ../shared/data/gamabench relative to the repository root, or under
$ARENA_SHARED_DATA/gamabench. For each released run this checks the pure scorer against the
recomputed and the printed scores, the five-run mean and sample std, and replays the run through the
engine: per-round mean and target, winning number, each player's win/loss line and the state's score.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from arena_engines import load_game
from arena_engines.guess_two_thirds_average import RATIO_TERM_LIMIT, gamabench_score

from .gamabench_data import (check_group, check_score, default_runs, entries, entry_id, five_run_group, load_run,
                             table9_variant)

GAME = "guess_2_3"


def ratio_of(meta: dict) -> Fraction:
    """The exact R of a run: ratio_str when it is a fraction ("2/3"), else the float (R = 0, 1 and 2
    are stored as "0.0%", "100.0%", "200.0%"), which must then be a small fraction."""
    text = meta["ratio_str"]
    if "/" in text:
        ratio = Fraction(text)
    else:
        ratio = Fraction(meta["ratio"]).limit_denominator(1000)
        assert ratio == Fraction(text.rstrip("%")) / 100
    assert abs(float(ratio) - meta["ratio"]) < 1e-12
    return ratio


def player_choices(run: dict) -> list[list[int]]:
    """choices[i][j] = player i's number in round j, from player_data (round_records' responses
    are shuffled)."""
    return [list(p["records"]) for p in run["player_data"]]


def check_scores(entry: dict):
    run = load_run(entry)
    meta = run["meta"]
    assert (meta["min"], meta["max"]) == (entry["setting"]["min"], entry["setting"]["max"])
    result = gamabench_score(player_choices(run), meta["min"], meta["max"], ratio_of(meta))
    assert result["S1"] == pytest.approx(entry["raw"]["S1"], abs=1e-6)
    check_score(result["score"], entry)
    return result


def replay(entry: dict) -> None:
    """Plays the run through the engine and compares every round with the log."""
    run = load_run(entry)
    meta = run["meta"]
    ratio = ratio_of(meta)
    choices = player_choices(run)
    players, rounds = len(choices), len(run["round_records"])
    assert (players, rounds) == (10, 20)
    representable = ratio.numerator <= RATIO_TERM_LIMIT and ratio.denominator <= RATIO_TERM_LIMIT
    assert representable, f"R = {ratio} does not fit the engine's ratio_numerator/ratio_denominator"
    state = load_game("guess_two_thirds_average", {
        "rounds": rounds, "min_value": meta["min"], "max_value": meta["max"],
        "ratio_numerator": ratio.numerator, "ratio_denominator": ratio.denominator,
    }, num_players=players).new_initial_state()
    for j, record in enumerate(run["round_records"]):
        picks = [choices[i][j] for i in range(players)]
        assert sorted(picks) == sorted(record["responses"])
        state.apply_actions(picks)
        ours = state.result_details()["rounds"][j]
        assert ours["mean"] == pytest.approx(record["mean"], abs=1e-9)
        assert ours["target"] == pytest.approx(record["mean_ratio"], abs=1e-9)
        # The code lets only the first of two equally close numbers win; the engine lets both win.
        assert record["winner"] in ours["winning_numbers"]
        assert record["winner_num"] == picks.count(record["winner"])
        tie = len(ours["winning_numbers"]) > 1
        for i, player in enumerate(run["player_data"]):
            # Messages per round: report, own canonical answer, own win/loss line.
            report, answer, outcome = (m["content"] for m in player["prompt"][1 + 3 * j:4 + 3 * j])
            assert f"Average Number Chosen: {record['mean']}" in report
            assert f"Winning Number: {record['winner']}." in report
            assert json.loads(answer) == {"chosen_number": str(picks[i])}
            view = state.observation_dict(i)["past_rounds"][j]
            assert view["my_choice"] == picks[i] and view["mean"] == pytest.approx(record["mean"])
            assert f"of Average): {view['target']:.2f}\n" in report
            code_won = outcome.startswith("Congratulation")
            if tie:
                assert code_won == (picks[i] == record["winner"])
            else:
                assert view["won"] == code_won
    assert state.is_terminal()
    assert state.gamabench_score() == gamabench_score(choices, meta["min"], meta["max"], ratio)


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_run_scores_match_the_recomputed_and_printed_values(entry):
    check_scores(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    group = five_run_group(GAME)
    by_file = {e["file"]: e for e in default_runs(GAME)}
    check_group([check_scores(by_file[f])["score"] for f in group["files"]], group)


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_through_the_engine(entry):
    replay(entry)


@pytest.mark.parametrize("entry", entries(lambda data: table9_variant(GAME, data)["entries"]),
                         ids=lambda e: e["setting_label"] if e else "missing")
def test_table9_ratio_variants_score_and_replay(entry):
    assert entry["game"] == GAME and entry["setting"]["min"] == 0 and entry["setting"]["max"] == 100
    check_scores(entry)
    replay(entry)


def test_table9_group_mean_and_std():
    variant = table9_variant(GAME)
    group = variant["group"]
    by_file = {e["file"]: e for e in variant["entries"]}
    assert len(group["files"]) == 13 and set(group["files"]) == set(by_file)
    check_group([check_scores(by_file[f])["score"] for f in group["files"]], group)
