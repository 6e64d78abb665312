"""Fidelity to GAMA-Bench's released Divide-the-Dollar runs (GPL-3.0 data, read in place, never
copied; see tests/engines/gamabench_data.py).

Every released file of the game (the five Table 5 runs and the Table 9 variations of G) is turned
into a history with `gamabench_history` and replayed through the engine. Each round is checked
against what the log records: the sum of the bids, the multiset of the (shuffled) responses, each
player's payoff, and each player's own report (its bid, the sum, whether it exceeded G, the golds
received), which must also be what the engine shows that seat. The finished state is then scored
with `gamabench_score` against expected.json, file by file and as the five-run and Table 9 groups.
"""

from __future__ import annotations

import json

import pytest

from arena_engines import game_spec, load_game
from arena_engines.core import SIMULTANEOUS
from arena_engines.divide_the_dollar import gamabench_history, gamabench_score

from .gamabench_data import (check_five_runs, check_group, check_score, default_runs, entries, entry_id, load_run,
                             setting_id, table9_entries, table9_group, table9_variant)

GAME = "divide_dollar"


def replayed(entry: dict):
    """The engine state after replaying the run, each round checked against the log."""
    run = load_run(entry)
    parameters, history = gamabench_history(run)
    golds = run["meta"]["golds"]
    assert parameters == {"players": run["meta"]["player_num"], "rounds": len(run["round_records"]), "golds": golds}
    assert (parameters["players"], parameters["rounds"]) == (10, 20)
    assert golds == entry["setting"]["golds"]
    state = load_game("divide_the_dollar", parameters).new_initial_state()
    for player in run["player_data"]:
        # The system prompt states the setting the engine was given.
        system = player["prompt"][0]["content"]
        assert f"game played by {parameters['players']} players over {parameters['rounds']} rounds" in system
        assert f"You are dividing {golds} golds." in system
    for j, (record, (seat, bids)) in enumerate(zip(run["round_records"], history)):
        assert seat == SIMULTANEOUS
        state.apply_actions(list(bids))
        ours = state.result_details()["rounds"][j]
        assert ours["total"] == record["total_proposal"] == sum(bids)
        assert sorted(bids) == sorted(record["responses"])
        exceeded = record["total_proposal"] > golds
        assert ours["exceeded"] == exceeded
        for i, player in enumerate(run["player_data"]):
            assert ours["received"][i] == player["utility"][j]
            # Messages per round: the report header, the canonical answer, the private result.
            _, answer, result = (m["content"] for m in player["prompt"][1 + 3 * j:4 + 3 * j])
            assert json.loads(answer) == {"bid_amount": str(bids[i])}
            assert f"The sum of all bids was {record['total_proposal']}." in result
            assert (f"The sum exceeds {golds}." if exceeded else f"The sum does not exceeds {golds}.") in result
            assert f"You received {player['utility'][j]} golds." in result
            view = state.observation_dict(i)["past_rounds"][j]
            assert view == {"round": j + 1, "total": record["total_proposal"], "exceeded": exceeded,
                            "my_bid": bids[i], "received": player["utility"][j]}
    assert state.is_terminal() and state.history() == history
    assert state.returns() == [float(sum(p["utility"])) for p in run["player_data"]]
    return state


def scored(entry: dict) -> float:
    """The replayed run's score, checked against the recomputed and the printed values."""
    state = replayed(entry)
    details = state.result_details()
    result = gamabench_score(state.game.parameters, details)
    assert result == details["gamabench"]
    assert result["S3"] == pytest.approx(entry["raw"]["S3"], abs=1e-9)
    # No released run strays far enough from G for the clip at 0 to matter.
    unclipped = gamabench_score(state.game.parameters, details, dollar_clip="eq1_unclipped")
    assert unclipped["score"] == result["score"] == pytest.approx(entry["raw"]["score_before_clip"], abs=1e-9)
    check_score(result["score"], entry)
    return result["score"]


@pytest.mark.parametrize("entry", entries(lambda data: default_runs(GAME, data)), ids=entry_id)
def test_default_runs_replay_and_score_as_published(entry):
    assert entry["setting"] == {"golds": 100}
    scored(entry)


def test_there_are_five_default_runs():
    assert [e["run"] for e in default_runs(GAME)] == [1, 2, 3, 4, 5]


def test_five_run_mean_and_sample_std():
    check_five_runs(GAME, scored)


@pytest.mark.parametrize("entry", table9_entries(GAME), ids=setting_id)
def test_table9_variants_replay_and_score_as_published(entry):
    scored(entry)


def test_table9_group_mean_and_std():
    group, runs = table9_group(GAME, 5)
    assert sorted(e["setting"]["golds"] for e in table9_variant(GAME)["entries"]) == [50, 100, 200, 400, 800]
    check_group([scored(entry) for entry in runs], group)


def test_each_table9_setting_is_a_preset():
    spec = game_spec("divide_the_dollar")
    for entry in table9_variant(GAME)["entries"]:
        golds = entry["setting"]["golds"]
        name = "gamabench" if golds == 100 else f"gamabench_g{golds}"
        assert spec.preset(name).values["golds"] == golds
