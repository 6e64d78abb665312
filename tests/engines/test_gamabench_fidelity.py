"""Fidelity to GAMA-Bench's released Guess-2/3 runs (GPL-3.0 data, read in place, never copied).

The data lives in ../shared/data/gamabench relative to the repository root, or under
$ARENA_SHARED_DATA/gamabench. For each released run this checks the pure scorer against the
recomputed and the printed scores, the five-run mean and sample std, and replays the run through the
engine: per-round mean and target, winning number, each player's win/loss line and the state's score.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
from fractions import Fraction
from pathlib import Path

import pytest

from arena_engines import load_game
from arena_engines.guess_two_thirds_average import RATIO_TERM_LIMIT, gamabench_score

GAME = "guess_2_3"


def data_dir() -> Path:
    root = os.environ.get("ARENA_SHARED_DATA")
    base = Path(root) if root else Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return base / "gamabench"


DATA = data_dir()


@functools.cache
def expected() -> dict:
    path = DATA / "expected.json"
    if not path.is_file():
        # Fail rather than skip: a fidelity suite that silently does not run proves nothing.
        pytest.fail(f"GAMA-Bench reference data not found under {DATA}; "
                    "set ARENA_SHARED_DATA to the directory that holds gamabench/")
    return json.loads(path.read_text())


def entries(select) -> list:
    """Parameters drawn from expected.json; without the data, one None entry whose test then fails."""
    if not (DATA / "expected.json").is_file():
        return [None]
    return select(expected())


def default_runs(data: dict) -> list[dict]:
    return [e for e in data["default_runs"] if e["game"] == GAME]


def table9_entries(data: dict) -> list[dict]:
    groups = [v for v in data["table9_parameter_variants"] if v["group"]["game"] == GAME]
    assert len(groups) == 1
    return groups[0]["entries"]


def load_run(entry: dict | None) -> dict:
    if entry is None:
        expected()
    return json.loads((DATA / entry["file"]).read_text())


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
    assert abs(result["score"] - entry["score_recomputed"]) <= entry["tolerance_vs_recomputed"]
    assert abs(result["score"] - entry["score_paper"]) <= entry["tolerance_vs_paper"]
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


@pytest.mark.parametrize("entry", entries(default_runs), ids=lambda e: Path(e["file"]).stem if e else "missing")
def test_default_run_scores_match_the_recomputed_and_printed_values(entry):
    check_scores(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(expected())] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    group = next(g for g in expected()["five_run_groups"] if g["game"] == GAME)
    by_file = {e["file"]: e for e in default_runs(expected())}
    scores = [check_scores(by_file[f])["score"] for f in group["files"]]
    mean, std = statistics.mean(scores), statistics.stdev(scores)
    assert abs(mean - group["mean_recomputed"]) <= group["tolerance_vs_recomputed"]
    assert abs(std - group["std_recomputed_ddof1"]) <= group["tolerance_vs_recomputed"]
    assert abs(mean - group["mean_paper"]) <= group["tolerance_vs_paper"]["mean"]
    assert abs(std - group["std_paper"]) <= group["tolerance_vs_paper"]["std"]


@pytest.mark.parametrize("entry", entries(default_runs), ids=lambda e: Path(e["file"]).stem if e else "missing")
def test_default_runs_replay_through_the_engine(entry):
    replay(entry)


@pytest.mark.parametrize("entry", entries(table9_entries), ids=lambda e: e["setting_label"] if e else "missing")
def test_table9_ratio_variants_score_and_replay(entry):
    assert entry["game"] == GAME and entry["setting"]["min"] == 0 and entry["setting"]["max"] == 100
    check_scores(entry)
    replay(entry)


def test_table9_group_mean_and_std():
    group = next(v["group"] for v in expected()["table9_parameter_variants"] if v["group"]["game"] == GAME)
    by_file = {e["file"]: e for e in table9_entries(expected())}
    assert len(group["files"]) == 13 and set(group["files"]) == set(by_file)
    scores = [check_scores(by_file[f])["score"] for f in group["files"]]
    mean, std = statistics.mean(scores), statistics.stdev(scores)
    assert abs(mean - group["mean_recomputed"]) <= group["tolerance_vs_recomputed"]
    assert abs(std - group["std_recomputed_ddof1"]) <= group["tolerance_vs_recomputed"]
    assert abs(mean - group["mean_paper"]) <= group["tolerance_vs_paper"]["mean"]
    assert abs(std - group["std_paper"]) <= group["tolerance_vs_paper"]["std"]
