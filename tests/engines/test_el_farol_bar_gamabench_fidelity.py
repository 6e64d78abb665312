"""Fidelity to GAMA-Bench's released El Farol Bar runs (GPL-3.0 data, read in place, never copied).

The data lives in ../shared/data/gamabench relative to the repository root, or under
$ARENA_SHARED_DATA/gamabench. Each released implicit-mode run (the five default runs of Table 5 and
the six capacities of Table 9) is converted with `gamabench_history` and replayed through the engine.
Every round is checked against the log: the attendance, the go ratio, which choice won, the goers'
payoff, each player's payoff, and what each player was told (the attendance report exactly when the
engine shows the seat the attendance, with the same numbers). The finished state is then scored with
`gamabench_score` against the recomputed and printed scores, and the five-run and Table 9 groups
against their means and sample standard deviations. Every file replays exactly.
"""

from __future__ import annotations

import json
import re

import pytest

from arena_engines import load_game
from arena_engines.core import SIMULTANEOUS
from arena_engines.el_farol_bar import gamabench_history, gamabench_score

from .gamabench_data import (check_five_runs, check_group, check_score, default_runs, entries, entry_id, load_run,
                             setting_id, table9_entries, table9_group, table9_variant)

GAME = "el_farol_bar"
# The attendance part of a round report, as the released prompts word it.
REPORT = re.compile(r"(\d+) players went to the bar, while (\d+) players stayed home\.\n(\d+)/(\d+), which is "
                    r"(more than|equal or less than) (\d+)% of the players went to the bar\.")


def replay(entry: dict):
    """The finished engine state of one released run, checked round by round against its log."""
    run = load_run(entry)
    meta = run["meta"]
    parameters, history = gamabench_history(run)
    assert parameters["mode"] == entry["setting"]["mode"] == "implicit"
    assert parameters["capacity_percent"] == round(100 * entry["setting"]["ratio"])
    assert (parameters["players"], parameters["rounds"]) == (10, 20)
    game = load_game(GAME, parameters)
    state = game.new_initial_state()
    players = run["player_data"]
    for j, (record, (kind, joint)) in enumerate(zip(run["round_records"], history)):
        assert kind == SIMULTANEOUS
        assert [("stay", "go")[a] for a in joint] == record["responses"]
        state.apply_actions(list(joint))
        ours = state.result_details()["rounds"][j]
        assert ours["went"] == record["go_num"]
        assert ours["went"] / parameters["players"] == record["go_ratio"]
        assert ("stay" if ours["crowded"] else "go") == record["winner"]
        assert (meta["min"] if ours["crowded"] else meta["max"]) == record["utility"]
        for i, player in enumerate(players):
            assert ours["payoffs"][i] == player["utility"][j]
            # Messages per round: the report, the canonical answer, the private payoff line.
            report, answer, payoff = (m["content"] for m in player["prompt"][1 + 3 * j:4 + 3 * j])
            assert json.loads(answer) == {"decision": record["responses"][i]}
            assert payoff == f"You gained {player['utility'][j]}."
            view = state.observation_dict(i)["past_rounds"][j]
            assert view["my_decision"] == record["responses"][i] and view["my_payoff"] == player["utility"][j]
            told = REPORT.search(report)
            # Implicit mode: exactly the players who went were told the attendance.
            assert view["result_seen"] == (told is not None) == (record["responses"][i] == "go")
            if told:
                went, stayed, went_again, players_told, relation, percent = told.groups()
                assert (int(went), int(stayed)) == (view["went"], view["stayed"]) and went == went_again
                assert int(players_told) == parameters["players"] and int(percent) == parameters["capacity_percent"]
                assert (relation == "more than") == view["crowded"]
            else:
                assert view["went"] is None and view["crowded"] is None
    assert state.is_terminal()
    assert state.history() == history
    assert state.returns() == [float(sum(p["utility"])) for p in players]
    return state


def score(entry: dict) -> float:
    state = replay(entry)
    result = gamabench_score(state.game.parameters, state.result_details())
    assert result["S2"] == pytest.approx(entry["raw"]["S2"], abs=1e-9)
    assert state.result_details()["gamabench"] == result
    check_score(result["score"], entry)
    return result["score"]


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_through_the_engine_and_score_as_printed(entry):
    score(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    check_five_runs(GAME, score)


@pytest.mark.parametrize("entry", table9_entries(GAME), ids=setting_id)
def test_table9_capacity_variants_replay_and_score_as_printed(entry):
    score(entry)


def test_table9_group_mean_and_std():
    group, runs = table9_group(GAME, 6)
    assert sorted(e["setting"]["ratio"] for e in table9_variant(GAME)["entries"]) == [0, 0.2, 0.4, 0.6, 0.8, 1]
    check_group([score(entry) for entry in runs], group)


def test_table9_capacities_are_the_presets():
    """Each Table 9 run's parameters are a preset of the engine (gamabench_r<percent>, gamabench at 60%)."""
    for entry in table9_variant(GAME)["entries"]:
        parameters, _ = gamabench_history(load_run(entry))
        percent = parameters["capacity_percent"]
        preset = "gamabench" if percent == 60 else f"gamabench_r{percent}"
        assert load_game(GAME, preset=preset).parameters == parameters


def test_history_conversion_refuses_what_the_engine_cannot_replay():
    run = load_run(default_runs(GAME)[0])
    with pytest.raises(ValueError, match="whole percentage"):
        gamabench_history({**run, "meta": {**run["meta"], "ratio": 0.625, "ratio_str": "62.5%"}})
    bad_player = {**run["player_data"][3], "records": ["maybe"] + run["player_data"][3]["records"][1:]}
    players = run["player_data"][:3] + [bad_player] + run["player_data"][4:]
    with pytest.raises(ValueError, match="'maybe' in round 1"):
        gamabench_history({**run, "player_data": players})
