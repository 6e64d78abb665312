"""Fidelity to GAMA-Bench's released Diner's Dilemma runs (GPL-3.0 data, read in place, never copied).

Each of the five default runs is converted with `gamabench_history`, replayed through the engine and
compared round by round with the log: the counts, the bill and its computation, the share, every
player's order and utility, and what each player was told (its report, its canonical answer and its
utility line). The finished state is then scored with `gamabench_score` against expected.json, one
run at a time and as the five-run group. The Table 9 variants' logs were left out of the data
(README "Left out"), so their presets are checked by hand in test_diners_dilemma.py.
"""

from __future__ import annotations

import json

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS
from arena_engines.diners_dilemma import gamabench_history, gamabench_score

from .gamabench_data import check_five_runs, check_score, default_runs, entries, entry_id, expected, load_run

GAME = "diners_dilemma"


def replay(entry: dict):
    """The finished state of the run, after checking every round against the log."""
    run = load_run(entry)
    parameters, history = gamabench_history(run)
    assert parameters == {"players": 10, "rounds": 20, "cheap_price": 10, "cheap_utility": 15,
                          "costly_price": 20, "costly_utility": 20}
    assert {k: parameters[k] for k in ("cheap_price", "cheap_utility", "costly_price", "costly_utility")} == {
        "cheap_price": entry["setting"]["cheap_cost"], "cheap_utility": entry["setting"]["cheap_utility"],
        "costly_price": entry["setting"]["exp_cost"], "costly_utility": entry["setting"]["exp_utility"]}
    state = load_game(GAME, parameters).new_initial_state()
    players = state.num_players
    for j, ((seat, joint), record) in enumerate(zip(history, run["round_records"], strict=True)):
        assert seat == SIMULTANEOUS
        state.apply_actions(list(joint))
        ours = state.result_details()["rounds"][j]
        assert ours["choices"] == record["responses"] == [p["records"][j] for p in run["player_data"]]
        assert ours["cheap_count"] == record["cheap_player"]
        assert ours["total_cost"] == record["total_cost"]
        assert ours["share"] == record["avg_cost"]
        costly = ours["costly_count"]
        assert record["cost_msg"] == f"{costly} * 20 + {players - costly} * 10 = {ours['total_cost']}"
        for i, player in enumerate(run["player_data"]):
            assert ours["utilities"][i] == player["utility"][j]
            view = state.observation_dict(i)["past_rounds"][j]
            assert (view["costly_count"], view["cheap_count"], view["total_cost"], view["my_choice"]) == \
                (costly, record["cheap_player"], record["total_cost"], player["records"][j])
            assert view["my_utility"] == player["utility"][j]
            # Messages per round after the system prompt: report, own canonical answer, utility line.
            report, answer, outcome = (m["content"] for m in player["prompt"][1 + 3 * j:4 + 3 * j])
            assert record["cost_msg"] in report and f" {record['avg_cost']}." in report
            assert json.loads(answer) == {"chosen_dish": view["my_choice"]}
            dish_utility = 15 if view["my_choice"] == "cheap" else 20
            assert f"{dish_utility} - {view['total_cost']}/{players} = {view['my_utility']:.2f}" in outcome
    assert state.is_terminal() and state.history() == history
    returns = state.returns()
    for i, player in enumerate(run["player_data"]):
        assert returns[i] == pytest.approx(sum(player["utility"]), abs=1e-9)
    return state


def score(entry: dict) -> dict:
    state = replay(entry)
    result = gamabench_score(state.game.parameters, state.result_details())
    assert result == state.result_details()["gamabench"]
    assert result["S5"] == pytest.approx(entry["raw"]["S5_fraction_cheap"], abs=1e-12)
    return result


def test_there_are_five_default_runs_and_no_table9_logs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]
    assert not [v for v in expected()["table9_parameter_variants"] if v["group"]["game"] == GAME]


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_exactly_and_score_as_printed(entry):
    check_score(score(entry)["score"], entry)


def test_five_run_mean_and_sample_std():
    check_five_runs(GAME, lambda entry: score(entry)["score"])


def test_the_gamabench_preset_is_the_logged_setting():
    values = game_spec(GAME).preset("gamabench").values
    setting = default_runs(GAME)[0]["setting"]
    assert (values["cheap_price"], values["cheap_utility"], values["costly_price"], values["costly_utility"]) == \
        (setting["cheap_cost"], setting["cheap_utility"], setting["exp_cost"], setting["exp_utility"])
